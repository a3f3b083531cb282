import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Connection } from '@echo/protocol/queue';
import { uniqueName, useRedis } from '@echo/testkit';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from '../src/index.js';

const JOBS = 1000;
const run = promisify(execFile);

// Outside the repository, so a bundle that still reached for files next to the package sources
// (`lua/*.lua` beside `import.meta.url`) would fail here with ENOENT.
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'echo-bundle-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('a queue app bundled with esbuild', () => {
  it(`runs from a lone file: ${JOBS} jobs enqueued, processed and completed`, async () => {
    const outfile = join(dir, 'app.mjs');
    await build({
      entryPoints: [fileURLToPath(new URL('./fixtures/bundle-app.ts', import.meta.url))],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      conditions: ['@echo/source'],
      // ioredis is CommonJS and requires Node built-ins; an ESM bundle needs a real `require` for them.
      banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
      logLevel: 'silent',
    });
    // The app never calls loadScript, so tree-shaking leaves no file read at all: the Lua travels as text.
    const code = readFileSync(outfile, 'utf8');
    expect(code).not.toContain('readFileSync');
    expect(code).toContain('@script enqueue');

    const { url } = await useRedis();
    const name = uniqueName('bundle');
    const { stdout } = await run(process.execPath, [outfile], {
      cwd: dir,
      env: { ...process.env, REDIS_URL: url, QUEUE_NAME: name, JOBS: String(JOBS) },
      timeout: 60_000,
    });
    expect(JSON.parse(stdout.trim())).toEqual({ processed: JOBS, pending: 0, active: 0, completed: JOBS });

    // And the server agrees, read by an unbundled client.
    const conn = await Connection.connect({ url });
    try {
      const queue = await Queue.open(name, { connection: conn });
      expect(await queue.counts('pending', 'active', 'completed')).toEqual({ pending: 0, active: 0, completed: JOBS });
    } finally {
      await conn.close();
    }
  }, 90_000);
});
