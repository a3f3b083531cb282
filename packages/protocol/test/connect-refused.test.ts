import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { freePort } from '@echo/testkit';
import { describe, expect, it } from 'vitest';

const FIXTURE = fileURLToPath(new URL('./fixtures/process/connect-refused.ts', import.meta.url));

describe('a refused connect', () => {
  it('fails typed, names the refusal, and lets the process exit at once: nothing of the dead socket holds the event loop', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--conditions=@echo/source', '--import', 'tsx', FIXTURE, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    const report = JSON.parse(out) as { error: string; message: string; exitAfterMs: number };
    expect(report.error).toBe('ConnectError');
    // The socket's own reason, not the driver's "Connection is closed." that follows it.
    expect(report.message).toBe(`cannot connect to 127.0.0.1:${String(port)}: connect ECONNREFUSED 127.0.0.1:${String(port)}`);
    // Measured inside the child from the connect call to its exit, so the loader's start-up does
    // not count. ioredis's 2 s disconnect timer on the already-closed socket used to hold it.
    expect(report.exitAfterMs).toBeLessThan(1500);
  }, 60_000);
});
