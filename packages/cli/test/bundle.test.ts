import { execFile } from 'node:child_process';
import { readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Queue } from '@echo/queue';
import { uniqueName, useRedis } from '@echo/testkit';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../..', import.meta.url));
const LAUNCHER = `${root}scripts/emq.mjs`;
const BUNDLE = `${root}packages/cli/.bundle/emq.mjs`;
const TSX_BIN = `${root}packages/cli/src/bin.ts`;

/** Prints the process's CPU time (user + system, ms) to stderr as it exits. */
const CPU_PROBE = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('cpu-ms:'+(u.user+u.system)/1000+'\\n')})`;

/** Wall time of one process, ms, and (with `--import` of {@link CPU_PROBE}) its CPU time. */
async function timed(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<{ ms: number; cpuMs: number; stdout: string }> {
  const t0 = performance.now();
  const { stdout, stderr } = await run(process.execPath, args, { cwd: root, env, encoding: 'utf8' });
  const cpu = /cpu-ms:([\d.]+)/.exec(stderr)?.[1];
  return { ms: performance.now() - t0, cpuMs: cpu === undefined ? NaN : Number(cpu), stdout };
}

describe('pnpm emq: the bundled bin (scripts/emq.mjs)', () => {
  it('builds the bundle when it is missing or older than a source, and it carries no TypeScript loader', async () => {
    rmSync(BUNDLE, { force: true });
    const first = await timed([LAUNCHER, '--version']);
    expect(first.stdout.trim()).toMatch(/^emq \d+\.\d+\.\d+/); // the version is read, not 'unknown'
    const built = statSync(BUNDLE).mtimeMs;
    expect(readFileSync(BUNDLE, 'utf8')).not.toMatch(/from ["']tsx|require\(["']tsx/);

    await timed([LAUNCHER, '--version']);
    expect(statSync(BUNDLE).mtimeMs).toBe(built); // fresh: reused

    const source = `${root}packages/cli/src/version.ts`;
    const original = statSync(source);
    const later = new Date(built + 5_000);
    utimesSync(source, later, later);
    try {
      await timed([LAUNCHER, '--version']);
      expect(statSync(BUNDLE).mtimeMs).toBeGreaterThan(built); // a newer source: rebuilt
    } finally {
      // A source dated in the future would stay newer than every bundle built in the next 5 s, so
      // each launch until then would rebuild (and the next test would time a build, not a start).
      utimesSync(source, original.atime, original.mtime);
    }
  }, 120_000);

  it('answers a real command against a server, and starts on less than half the CPU the tsx bin takes', async () => {
    const { url } = await useRedis();
    const name = uniqueName('bundle');
    const q = await Queue.open(name, { connect: url });
    await q.enqueue({ n: 1 });
    await q.close();
    const env = { ...process.env, REDIS_URL: url };
    const out = await timed([LAUNCHER, 'stats', name], env);
    expect(out.stdout).toContain('pending');

    // The start-up is compared in CPU time, which a loaded machine barely moves: wall time did not
    // hold (two CPU hogs beside the test run: the bundled bin 2.1 s, the tsx bin 2.0 s). Interleaved;
    // quiet, the bundled bin took 150 ms of CPU and the tsx bin 480-490 (its compile cache warm).
    const bundled: number[] = [];
    const viaTsx: number[] = [];
    for (let i = 0; i < 3; i++) {
      bundled.push((await timed(['--import', CPU_PROBE, LAUNCHER, '--help'])).cpuMs);
      viaTsx.push((await timed(['--import', CPU_PROBE, '--conditions=@echo/source', '--import', 'tsx', TSX_BIN, '--help'])).cpuMs);
    }
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[1] ?? NaN;
    expect(median(bundled)).toBeGreaterThan(0);
    expect(median(bundled) * 2).toBeLessThan(median(viaTsx));
  }, 120_000);

  it('answers --help without loading the commands, the pillars or the driver (no tls, no http: they load with a command)', async () => {
    await timed([LAUNCHER, '--version']); // the bundle is built and fresh
    // The built-in modules the process loaded, after `emq --help` ran in it.
    const probe = [
      "process.argv = [process.argv[0], 'emq', '--help'];",
      `await import(${JSON.stringify(BUNDLE)});`,
      "process.on('exit', () => console.error(JSON.stringify(process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)))));",
    ].join('\n');
    const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', probe], { cwd: root, encoding: 'utf8' });
    expect(stdout).toContain('Usage:');
    const loaded = JSON.parse(stderr.trim().split('\n').at(-1) ?? '[]') as string[];
    expect(loaded).toContain('fs'); // the probe sees what was loaded
    for (const heavy of ['tls', 'http', 'http2', 'crypto', 'dns']) expect(loaded, heavy).not.toContain(heavy);
  }, 120_000);
});
