/**
 * Long run: a steady mixed workload (plain jobs, retries, delays, flows, an events listener) for
 * 60 s (`ECHO_SOAK_S=600` for the ten-minute run) in a child process. After warm-up, Node's heap and
 * Redis' memory must be flat (slopes printed per minute), every job terminal, every key one the
 * registry parses, and the process must exit by itself once it closed everything: an open timer or
 * socket would keep it alive.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SOAK_S = Number(process.env.ECHO_SOAK_S ?? 60);
const fixture = fileURLToPath(new URL('fixtures/soak-process.ts', import.meta.url));
const packageRoot = fileURLToPath(new URL('../..', import.meta.url));

let server: RedisServer;

beforeAll(async () => {
  server = await startRedis();
});

afterAll(async () => {
  await server.stop();
});

interface SoakResult {
  readonly produced: number;
  readonly counts: Record<'completed' | 'dead' | 'pending' | 'active' | 'schedule', number>;
  readonly workerStats: { readonly lost: number };
  readonly heapSlopeMbPerMin: number;
  readonly redisSlopeKbPerMin: number;
  readonly flows: number;
  readonly residueSubs: Record<string, number>;
  readonly redisSlopeLessResidueKbPerMin: number;
  readonly strays: readonly string[];
  readonly resourcesAfter: readonly string[];
}

describe('soak: a steady mixed workload', () => {
  it('keeps memory flat, ends every job, leaves only registry keys, and exits by itself', async () => {
    const child = spawn(process.execPath, ['--expose-gc', '--conditions=@echo/source', '--import', 'tsx', fixture], {
      cwd: packageRoot,
      env: { ...process.env, SOAK_URL: server.url, SOAK_S: String(SOAK_S), SOAK_SAMPLE_MS: String(Math.max(1_000, SOAK_S * 30)) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-4000)));
    let resultAt = 0;
    child.stdout.on('data', () => {
      if (resultAt === 0 && out.includes('result ')) resultAt = Date.now();
    });
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), (SOAK_S + 90) * 1000);
      child.once('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    const line = out.split('\n').find((l) => l.startsWith('result '));
    expect(line, `no result; stderr:\n${err}`).toBeDefined();
    const result = JSON.parse((line as string).slice('result '.length)) as SoakResult;
    console.log(JSON.stringify({ ...result, exitAfterResultMs: Date.now() - resultAt }));
    expect(code).toBe(0);
    expect(result.counts.completed).toBe(result.produced);
    expect(result.counts.dead).toBe(0);
    expect(result.workerStats.lost).toBe(0);
    expect(result.strays).toEqual([]);
    // Flat after warm-up: well under what a per-job leak would show (the run admits ~15,000 jobs a
    // minute; a leak of 100 B of heap per job would be 1.5 MB a minute).
    expect(Math.abs(result.heapSlopeMbPerMin)).toBeLessThan(1.5);
    // A completed flow parent's `:processed` and `:dependencies` go with its row (they grew ~300 KB a
    // minute here before): no sub-key outlives its job, and Redis is flat, well under the ~1.5 MB a
    // minute that one key leaked per job would add. The bound is half that leak: a one-minute slope
    // moves with the machine (227 KB/min at load 10-16 beside other work, under 100 quiet), and the
    // residue check above names any sub-key that outlives its job whatever the slope.
    expect(result.residueSubs).toEqual({});
    expect(Math.abs(result.redisSlopeLessResidueKbPerMin)).toBeLessThan(750);
  }, (SOAK_S + 120) * 1000);
});
