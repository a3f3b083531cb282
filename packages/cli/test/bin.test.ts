import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Queue } from '@echo/queue';
import { Connection } from '@echo/protocol';
import { uniqueName, useRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../src/bin.ts', import.meta.url));

let url: string;
let conn: Connection;
beforeAll(async () => {
  url = (await useRedis()).url;
  conn = await Connection.connect({ url });
});
afterAll(async () => {
  await conn.close();
});

/** The real binary from source, as a separate process (tsx, the `@echo/source` condition). */
function start(args: readonly string[]) {
  const child = spawn(process.execPath, ['--conditions=@echo/source', '--import', 'tsx', BIN, ...args], {
    env: { ...process.env, REDIS_URL: url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number);
  return { child, exited, out: () => out, err: () => err };
}

describe('the emq binary', () => {
  it('prints JSON and exits 0; exits 2 on an unknown command', async () => {
    const name = uniqueName('bin');
    await (await Queue.open(name, { connection: conn })).enqueue('x');
    const ok = start(['stats', name, '--json', '--interval', '50']);
    expect(await ok.exited).toBe(0);
    expect(JSON.parse(ok.out())).toMatchObject({ name, counts: { pending: 1 } });
    const bad = start(['frobnicate']);
    expect(await bad.exited).toBe(2);
    expect(bad.err()).toMatch(/^emq: unknown command "frobnicate"/);
  }, 60_000);

  it('serves the dashboard until SIGINT', async () => {
    const run = start(['dashboard', '--port', '0', '--read-only']);
    const address = await new Promise<string>((resolve, reject) => {
      run.child.stdout.on('data', () => {
        const found = /dashboard on (http:\/\/\S+) \(read-only\)/.exec(run.out());
        if (found?.[1] !== undefined) resolve(found[1]);
      });
      void run.exited.then((code) => reject(new Error(`exited ${code}: ${run.err()}`)));
    });
    const res = await fetch(`${address}api/queues`);
    expect(res.status).toBe(200);
    expect((await fetch(`${address}api/queues/x/pause`, { method: 'POST', headers: { 'x-echo-dashboard': '1' } })).status).toBe(403);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  }, 60_000);
});
