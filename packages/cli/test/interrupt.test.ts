/**
 * Ctrl-C stops any command at once: `watch` ends its frame (exit 0), the others stop with 130,
 * and the binary exits instead of waiting out a rate window or a call.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Connection } from '@echo/protocol';
import { Queue } from '@echo/queue';
import { uniqueName, useRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, main, type CliIo } from '../src/index.js';

const BIN = fileURLToPath(new URL('../src/bin.ts', import.meta.url));
/** A rate window no test waits out: ten minutes, the flag's ceiling. */
const LONG = '600000';

let url: string;
let conn: Connection;
beforeAll(async () => {
  url = (await useRedis()).url;
  conn = await Connection.connect({ url });
});
afterAll(async () => {
  await conn.close();
});

/** Runs `emq` in-process and aborts its signal (as Ctrl-C does) once `after` resolves. */
async function interrupted(args: readonly string[], after: (stop: () => void) => void): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const stop = new AbortController();
  const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t), env: { REDIS_URL: url }, isTty: false, signal: stop.signal };
  after(() => stop.abort());
  const code = await main(args, io);
  return { code, out, err };
}

async function someQueue(): Promise<string> {
  const queue = await Queue.open(uniqueName('int'), { connection: conn });
  await queue.enqueue('x');
  return queue.name;
}

describe('emq on Ctrl-C', () => {
  it('watch stops in the middle of a long rate window and ends with 0', async () => {
    const name = await someQueue();
    const ran = await interrupted(['watch', name, '--interval', LONG], (stop) => setTimeout(stop, 300));
    expect(ran).toEqual({ code: EXIT.ok, out: '', err: '' });
  });

  it('stats stops in the middle of its rate window with 130', async () => {
    const name = await someQueue();
    const ran = await interrupted(['stats', name, '--interval', LONG], (stop) => setTimeout(stop, 300));
    expect(ran).toEqual({ code: EXIT.interrupted, out: '', err: 'emq: interrupted\n' });
  });

  it('the binary exits 130 at once on SIGINT during a long stats window', async () => {
    const name = await someQueue();
    const cliConnections = async (): Promise<number> => ((await conn.command('CLIENT', 'LIST')) as string).split('\n').filter((line) => line.includes(' name=emq-cli ')).length;
    const before = await cliConnections();
    const child = spawn(process.execPath, ['--conditions=@echo/source', '--import', 'tsx', BIN, 'stats', name, '--interval', LONG], {
      env: { ...process.env, REDIS_URL: url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = once(child, 'exit');
    try {
      // Connected and inside the window once the server lists one more CLI connection.
      const inWindow = async (): Promise<boolean> => (await cliConnections()) > before;
      const deadline = Date.now() + 30_000;
      while (!(await inWindow())) {
        if (Date.now() > deadline) throw new Error(`emq never connected: ${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      child.kill('SIGINT');
      // Before, the window's timer held the process for the whole ten minutes.
      const [code] = (await exited) as [number | null];
      expect(code).toBe(EXIT.interrupted);
      expect(err).toBe('emq: interrupted\n');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
