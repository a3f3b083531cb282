import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { freePort } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../src/index.js';

const TIMED_BIN = fileURLToPath(new URL('./fixtures/timed-bin.ts', import.meta.url));

describe('emq against a server that is not there', () => {
  it('fails at once with the refusal, exit status 4, and the process exits', async () => {
    const port = await freePort(); // free, and nobody listens on it
    const child = spawn(process.execPath, ['--conditions=@echo/source', '--import', 'tsx', TIMED_BIN, 'queues'], {
      env: { ...process.env, REDIS_URL: `redis://127.0.0.1:${String(port)}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(EXIT.unavailable);
    expect(err).toBe(`emq: cannot connect to 127.0.0.1:${String(port)}: connect ECONNREFUSED 127.0.0.1:${String(port)}\n`);
    // From the call to exit, start-up aside: milliseconds now; a dead socket's 2 s timer held it.
    const took = Number(/^exit after (\d+) ms$/m.exec(out)?.[1]);
    expect(took).toBeLessThan(1500);
  }, 60_000);
});
