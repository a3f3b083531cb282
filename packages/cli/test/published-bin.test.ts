/**
 * The bin `@echo/cli` publishes (`bin.emq`, built by `scripts/bundle.mjs` into `dist/`): one
 * esbuild bundle that runs on Node alone, wherever it is copied, with no TypeScript loader and no
 * `node_modules` to resolve at run time.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Queue } from '@echo/queue';
import { uniqueName, useRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleEmq } from '../scripts/bundle.mjs';

const run = promisify(execFile);
const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string>; scripts: Record<string, string> };

/** A scratch folder outside the repository: the bundle finds no `node_modules` and no package.json there. */
let outdir: string;
beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'emq-bin-'));
  await bundleEmq({ outdir });
}, 120_000);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const emq = (args: readonly string[], env: NodeJS.ProcessEnv = process.env) =>
  run(process.execPath, [join(outdir, 'emq.mjs'), ...args], { cwd: outdir, env, encoding: 'utf8' });

describe('the published emq bin (dist/emq.mjs)', () => {
  it('is what the package publishes and its build writes', () => {
    expect(manifest.bin).toEqual({ emq: './dist/emq.mjs' });
    expect(manifest.scripts.build).toContain('node scripts/bundle.mjs');
  });

  it('imports nothing but its own chunks and Node built-ins, and carries no TypeScript loader', () => {
    const files = [join(outdir, 'emq.mjs'), ...readdirSync(join(outdir, 'chunks')).map((f) => join(outdir, 'chunks', f))];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const imported = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;'"]*?from\s*["']([^"']+)["']/g)].map((m) => m[1] ?? '');
      for (const spec of imported) expect(spec, file).toMatch(/^(node:|\.\.?\/)/);
      expect(text, file).not.toMatch(/from ["']tsx|require\(["']tsx/);
    }
  });

  it('answers --version with the package version from a folder without package.json', async () => {
    const { stdout } = await emq(['--version']);
    expect(stdout.trim()).toBe(`emq ${manifest.version}`);
  }, 60_000);

  it('runs a real command against a server', async () => {
    const { url } = await useRedis();
    const name = uniqueName('published');
    const queue = await Queue.open(name, { connect: url });
    await queue.enqueueMany([{ payload: { n: 1 } }, { payload: { n: 2 } }]);
    await queue.close();
    const { stdout } = await emq(['queues', '--json'], { ...process.env, REDIS_URL: url });
    const { queues } = JSON.parse(stdout) as { queues: { name: string; counts: { pending: number } }[] };
    expect(queues.find((q) => q.name === name)?.counts.pending).toBe(2);
  }, 60_000);
});
