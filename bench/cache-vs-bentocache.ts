/**
 * Echo's keyed cache namespace vs BentoCache 1.6.1 on the same server, interleaved round by round
 * (A B A B), reporting per-round ratios. Rows: L1 hit of a ~5 KB value (awaited), L2 read (L1 off,
 * one key per caller), miss + fill, a 4-process x 100-caller stampede on one cold key with a 200 ms
 * loader, and how long a write takes to reach another instance's L1 (p99).
 *
 *   pnpm bench:cache                          # full size
 *   pnpm bench:cache --quick                  # smoke run (small sizes, 2 rounds)
 *   pnpm bench:cache --rounds 7 --ops 200000
 */
import { Cache } from '@echo/cache';
import { Connection } from '@echo/protocol';
import { BentoCache, bentostore } from 'bentocache';
import { memoryDriver } from 'bentocache/drivers/memory';
import { redisBusDriver, redisDriver } from 'bentocache/drivers/redis';
import { Redis } from 'ioredis';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { boolOption, intOption } from './lib/options.js';
import { progress, publish, table } from './lib/report.js';
import { fmt, pairedRatios, spread } from './lib/stats.js';
import { acquireTarget, type BenchTarget } from './lib/target.js';

// A bare `--quick` is a flag; `--quick=false` or QUICK=0 turn it off.
const quick = process.argv.includes('--quick') || boolOption('quick', false);
const ROUNDS = intOption('rounds', quick ? 2 : 5);
const HIT_OPS = intOption('hit-ops', quick ? 20_000 : 500_000);
const L2_OPS = intOption('l2-ops', quick ? 2_000 : 50_000);
const FILL_OPS = intOption('fill-ops', quick ? 500 : 10_000);
const CALLERS = intOption('callers', 100);
const INVALIDATIONS = intOption('invalidations', quick ? 50 : 500);
const PROCESSES = intOption('processes', 4);
const LOADER_MS = intOption('loader-ms', 200);
const VALUE = { blob: 'x'.repeat(5000), n: 1 };

interface System {
  readonly name: string;
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<void>;
  getOrSet(key: string, factory: () => Promise<unknown>): Promise<unknown>;
  /** Resolves when this instance hears about a write to `key` by another instance. */
  onInvalidated(key: string): Promise<void>;
  close(): Promise<void>;
}

async function echo(target: BenchTarget, ns: string, options: { l1?: boolean } = {}): Promise<System> {
  const connection = await Connection.connect(target.url);
  const cache = await Cache.open({ connection });
  const namespace = await cache.namespace<typeof VALUE>({ name: ns, ttl: 600_000, maxSize: 100_000, ...options });
  return {
    name: 'echo',
    get: (key) => namespace.get(key),
    set: (key, value) => namespace.set(key, value as typeof VALUE),
    getOrSet: (key, factory) => namespace.getOrSet(key, factory as () => Promise<typeof VALUE>),
    onInvalidated: (key) => new Promise((resolve) => {
      const off = namespace.on('coherence', (e) => {
        if (e.keys.includes(key)) {
          off();
          resolve();
        }
      });
    }),
    close: async () => {
      await cache.close();
      await connection.close();
    },
  };
}

function bento(target: BenchTarget, ns: string, options: { l1?: boolean } = {}): System {
  const connection = { host: target.host, port: target.port };
  let store = bentostore();
  if (options.l1 !== false) store = store.useL1Layer(memoryDriver({ maxItems: 100_000, serialize: false }));
  store = store.useL2Layer(redisDriver({ connection })).useBus(redisBusDriver({ connection }));
  const cache = new BentoCache({ default: 'c', stores: { c: store } });
  const space = cache.namespace(ns);
  return {
    name: 'bentocache',
    get: (key) => space.get({ key }),
    set: (key, value) => space.set({ key, value, ttl: 600_000 }).then(() => undefined),
    getOrSet: (key, factory) => space.getOrSet({ key, factory, ttl: 600_000 }),
    onInvalidated: (key) => new Promise((resolve) => {
      const listener = (e: { message?: { keys?: string[] } }): void => {
        if (e.message?.keys?.some((k) => k.endsWith(key)) === true) {
          cache.off('bus:message:received', listener);
          resolve();
        }
      };
      cache.on('bus:message:received', listener);
    }),
    close: () => cache.disconnectAll(),
  };
}

/** Awaited L1 hits from one caller: ops per second. */
async function l1Hit(system: System): Promise<number> {
  await system.set('hot', VALUE);
  await system.get('hot');
  const t = performance.now();
  for (let i = 0; i < HIT_OPS; i++) await system.get('hot');
  return HIT_OPS / ((performance.now() - t) / 1000);
}

/** `CALLERS` concurrent callers each reading its own key through L2 (L1 off): reads per second. */
async function l2Read(reader: System, writer: System): Promise<number> {
  await Promise.all(Array.from({ length: CALLERS }, (_, c) => writer.set(`r${c}`, VALUE)));
  const per = Math.ceil(L2_OPS / CALLERS);
  const t = performance.now();
  await Promise.all(Array.from({ length: CALLERS }, async (_, c) => {
    for (let i = 0; i < per; i++) await reader.get(`r${c}`);
  }));
  return (per * CALLERS) / ((performance.now() - t) / 1000);
}

/** `CALLERS` concurrent callers, each getOrSet of fresh keys (a miss, a factory, an L2 write): fills per second. */
async function missFill(system: System, round: number): Promise<number> {
  const per = Math.ceil(FILL_OPS / CALLERS);
  const t = performance.now();
  await Promise.all(Array.from({ length: CALLERS }, async (_, c) => {
    for (let i = 0; i < per; i++) await system.getOrSet(`f${round}:${c}:${i}`, () => Promise.resolve(VALUE));
  }));
  return (per * CALLERS) / ((performance.now() - t) / 1000);
}

/** Writes on `a`, time until `b` hears: p99 in ms. */
async function invalidation(a: System, b: System): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < INVALIDATIONS; i++) {
    await a.set('inv', { n: i });
    await b.get('inv');
    const heard = b.onInvalidated('inv');
    const t = performance.now();
    await a.set('inv', { n: -i });
    await heard;
    times.push(performance.now() - t);
  }
  times.sort((x, y) => x - y);
  return times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] as number;
}

/** `PROCESSES` processes x `CALLERS` callers on one cold key: loader runs and wall ms. */
async function stampede(target: BenchTarget, system: string, round: number): Promise<{ runs: number; wallMs: number }> {
  const runsKey = `bench:runs:${system}:${round}`;
  const peer = fileURLToPath(new URL('./lib/cache-peer.ts', import.meta.url));
  const children = Array.from({ length: PROCESSES }, () =>
    spawn(process.execPath, ['--conditions=@echo/source', '--import', 'tsx', peer], {
      env: { ...process.env, BENCH_URL: target.url, BENCH_SYSTEM: system, BENCH_CALLERS: String(CALLERS), BENCH_LOADER_MS: String(LOADER_MS), BENCH_RUNS_KEY: runsKey, BENCH_NS: `st${round}` },
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  );
  const lines = children.map((child) => {
    const queue: string[] = [];
    const waiting: ((line: string) => void)[] = [];
    let buf = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buf += chunk.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const w = waiting.shift();
        if (w) w(line);
        else queue.push(line);
      }
    });
    return (): Promise<string> => new Promise((resolve) => {
      const line = queue.shift();
      if (line !== undefined) resolve(line);
      else waiting.push(resolve);
    });
  });
  await Promise.all(lines.map((next) => next()));
  for (const child of children) child.stdin.write(`cold${round}\n`);
  const answers = (await Promise.all(lines.map((next) => next()))).map((l) => JSON.parse(l) as { start: number; end: number });
  for (const child of children) child.kill('SIGKILL');
  const side = new Redis({ host: target.host, port: target.port });
  const runs = await side.llen(runsKey);
  await side.quit();
  return { runs, wallMs: Math.max(...answers.map((a) => a.end)) - Math.min(...answers.map((a) => a.start)) };
}

const target = await acquireTarget();
const figures: Record<string, { echo: number[]; bento: number[] }> = {};
const record = (row: string, e: number, b: number): void => {
  figures[row] ??= { echo: [], bento: [] };
  figures[row].echo.push(e);
  figures[row].bento.push(b);
};
const stampedes: { echo: string[]; bento: string[] } = { echo: [], bento: [] };
try {
  for (let round = 0; round < ROUNDS; round++) {
    progress(`round ${round + 1}/${ROUNDS}`);
    const [e1, e2, eL2] = [await echo(target, `e${round}`), await echo(target, `e${round}`), await echo(target, `e${round}`, { l1: false })];
    const [b1, b2, bL2] = [bento(target, `b${round}`), bento(target, `b${round}`), bento(target, `b${round}`, { l1: false })];
    // Interleaved: each row runs Echo then BentoCache within the round.
    record('L1 hit, awaited, ~5 KB (ops/s)', await l1Hit(e1), await l1Hit(b1));
    record(`L2 read, ${CALLERS} callers, one key each (ops/s)`, await l2Read(eL2, e1), await l2Read(bL2, b1));
    record(`miss + fill, ${CALLERS} callers (ops/s)`, await missFill(e1, round), await missFill(b1, round));
    record('invalidation seen by another instance, p99 (ms)', await invalidation(e1, e2), await invalidation(b1, b2));
    const se = await stampede(target, 'echo', round);
    const sb = await stampede(target, 'bento', round);
    stampedes.echo.push(`${se.runs} run / ${se.wallMs} ms`);
    stampedes.bento.push(`${sb.runs} runs / ${sb.wallMs} ms`);
    for (const s of [e1, e2, eL2, b1, b2, bL2]) await s.close();
  }
} finally {
  await target.stop();
}

const rows = Object.entries(figures).map(([row, f]) => {
  const e = spread(f.echo);
  const b = spread(f.bento);
  // Ratios read "times better than BentoCache": throughput Echo / Bento, latency Bento / Echo.
  const r = spread(row.includes('(ms)') ? pairedRatios(f.bento, f.echo) : pairedRatios(f.echo, f.bento));
  return [row, fmt(e.median), fmt(b.median), `${fmt(r.median)}x (${fmt(r.min)}-${fmt(r.max)})`];
});
rows.push([`stampede: ${PROCESSES} processes x ${CALLERS} callers, ${LOADER_MS} ms loader (loader runs / wall)`, stampedes.echo.join(', '), stampedes.bento.join(', '), 'see runs']);
const md = [
  `# Echo keyed cache vs BentoCache 1.6.1`,
  '',
  `${ROUNDS} rounds, interleaved; ratio = how many times better Echo did than BentoCache in the same round (throughput Echo/Bento, latency Bento/Echo), median (min-max).`,
  '',
  table(['row', 'echo (median)', 'bentocache (median)', 'ratio'], rows),
].join('\n');
publish('cache-latest.md', md);
