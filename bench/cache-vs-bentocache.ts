/**
 * Echo's keyed cache namespace vs BentoCache 1.6.1 on the same server, every row of the keyed-cache
 * table paired in the same run: rounds interleave the two systems (which goes first alternates), and
 * each row reports the median (min-max) of the per-round ratios with what each side cost per
 * operation: Node CPU µs (process.cpuUsage), Redis CPU µs (INFO cpu), server commands (INFO
 * commandstats, commands run inside scripts included) and server read events (INFO stats
 * total_reads_processed: how many times the server read a client socket, so round trips, a
 * pipeline or a batch counting once). CALLERS concurrent callers, two ~5 KB JSON
 * values: the package's shape (one long string, `blob`) and issue 37's (32 small records, `records`),
 * each with its rows; `--payload blob|records` runs one. The fill and set rows also run a hand-rolled
 * ioredis client (`handRolled`) in each round: the ceiling any cache that writes a value once and
 * keeps its text in L1 can reach there, printed as its own ratio to bentocache. The fill and set rows
 * write a new value each time (the loader builds it, as a real one does); the others read one.
 *
 *   pnpm bench:cache                          # 3 rounds, about 1-2 minutes
 *   pnpm bench:cache --quick                  # smoke run (small sizes, 2 rounds)
 *   pnpm bench:cache --rounds 5 --hit-ops 400000
 */
import { Redis } from 'ioredis';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type BentoShape, type System, type Value, RECORDS, VALUE, blob, bento, echo, handRolled, records } from './lib/cache-systems.js';
import { type Cost, metered } from './lib/cpu-meter.js';
import { boolOption, intOption, stringOption } from './lib/options.js';
import { progress, publish, table } from './lib/report.js';
import { fmt, pairedRatios, spread } from './lib/stats.js';
import { acquireTarget, type BenchTarget } from './lib/target.js';

// A bare `--quick` is a flag; `--quick=false` or QUICK=0 turn it off.
const quick = process.argv.includes('--quick') || boolOption('quick', false);
const ROUNDS = intOption('rounds', quick ? 2 : 5);
const PAYLOAD = stringOption('payload', 'both', ['both', 'blob', 'records']);
/** Keys the callers of a "sharing keys" row spread over (CALLERS / SHARED callers per key). */
const SHARED = intOption('shared-keys', 5);
const CALLERS = intOption('callers', 50);
const HIT_OPS = intOption('hit-ops', quick ? 20_000 : 200_000);
const L2_OPS = intOption('l2-ops', quick ? 2_000 : 20_000);
const MISS_OPS = intOption('miss-ops', quick ? 1_000 : 10_000);
const INVALIDATIONS = intOption('invalidations', quick ? 30 : 100);
const PROCESSES = intOption('processes', 4);
const STAMPEDE_CALLERS = intOption('stampede-callers', 100);
const LOADER_MS = intOption('loader-ms', 200);


/** CALLERS concurrent loops of `per` awaited calls; answers the operation count. */
async function loops(per: number, call: (caller: number, i: number) => Promise<unknown>): Promise<number> {
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, c) => {
      for (let i = 0; i < per; i++) await call(c, i);
    }),
  );
  return per * CALLERS;
}

/** One throughput row: how to open each side, then the measured work on the opened system. */
interface Row {
  readonly title: string;
  readonly echo: Parameters<typeof echo>[2];
  readonly bento: BentoShape;
  /** The row also runs the hand-rolled ioredis client ({@link handRolled}): its ceiling is printed beside the ratio. */
  readonly floor?: true;
  /** Untimed preparation (writes the keys a read row reads). */
  prepare?(system: System, round: number): Promise<void>;
  run(system: System, round: number): Promise<number>;
}

/** The rows of one payload: the package's own shapes for `blob`, issue 37's shapes for `records`. */
function rowsOf(payload: 'blob' | 'records'): Row[] {
  const value = payload === 'blob' ? VALUE : RECORDS;
  const fill = (): Promise<Value> => Promise.resolve(value);
  // The fill and set rows write a new value each time, built as a loader builds its answer: a
  // cache that keeps a writer's object costs the collector what that object costs, which one
  // shared value would hide (Echo's L1 kept it until this was measured).
  const make = payload === 'blob' ? blob : records;
  const loaded = (): Promise<Value> => Promise.resolve(make());
  const tag = ` [${payload}]`;
  const hits = (s: System): Promise<number> => loops(Math.ceil(HIT_OPS / CALLERS), () => s.getOrSet('hot', fill));
  const warmHot = async (s: System): Promise<void> => {
    await s.getOrSet('hot', fill);
  };
  const ownKeys = async (s: System): Promise<void> => {
    await Promise.all(Array.from({ length: CALLERS }, (_, c) => s.set(`r${String(c)}`, value)));
  };
  const sharedKeys = async (s: System): Promise<void> => {
    await Promise.all(Array.from({ length: SHARED }, (_, k) => s.set(`sk${String(k)}`, value)));
  };
  const missFill = (s: System, round: number): Promise<number> =>
    loops(Math.ceil(MISS_OPS / CALLERS), (c, i) => s.getOrSet(`f${String(round)}:${String(c)}:${String(i)}`, loaded));
  const missSet = (s: System, round: number): Promise<number> =>
    loops(Math.ceil(MISS_OPS / CALLERS), async (c, i) => {
      const key = `s${String(round)}:${String(c)}:${String(i)}`;
      if ((await s.get(key)) === undefined) await s.set(key, make());
    });
  const l2Own = (s: System): Promise<number> => loops(Math.ceil(L2_OPS / CALLERS), (c) => s.getOrSet(`r${String(c)}`, fill));
  const l2Shared = (s: System): Promise<number> => loops(Math.ceil(L2_OPS / CALLERS), (c) => s.getOrSet(`sk${String(c % SHARED)}`, fill));
  if (payload === 'records') {
    // Issue 37's shape: bentocache's defaults (its copying L1, Redis L2, no bus), L2-only for the L2 rows.
    return [
      { title: `L2 read through getOrSet, ${String(CALLERS)} callers sharing ${String(SHARED)} keys, no L1${tag}`, echo: { l1: false }, bento: { l1: false }, prepare: sharedKeys, run: l2Shared },
      { title: `L2 read, one key per caller, no L1${tag}`, echo: { l1: false }, bento: { l1: false }, prepare: ownKeys, run: l2Own },
      { title: `miss + fill, getOrSet of a fresh key (bentocache defaults, no bus)${tag}`, echo: {}, bento: { l1: 'copy', bus: false }, floor: true, run: missFill },
      { title: `miss + set, get then set (bentocache defaults, no bus)${tag}`, echo: {}, bento: { l1: 'copy', bus: false }, floor: true, run: missSet },
      { title: `L1 hit with a copy (read: 'clone' vs bentocache's copying L1)${tag}`, echo: { read: 'clone' }, bento: { l1: 'copy', bus: false }, prepare: warmHot, run: hits },
    ];
  }
  return [
    { title: `L1 hit, frozen shared value (bentocache \`serialize: false\`)${tag}`, echo: {}, bento: { l1: 'shared' }, prepare: warmHot, run: hits },
    { title: `L1 hit, a private copy (\`read: 'clone'\`) vs bentocache's default copying L1${tag}`, echo: { read: 'clone' }, bento: { l1: 'copy' }, prepare: warmHot, run: hits },
    { title: `L2 read, each caller its own key, no L1 (\`l1: false\`; bentocache L2-only)${tag}`, echo: { l1: false }, bento: { l1: false }, prepare: ownKeys, run: l2Own },
    { title: `L2 read, ${String(CALLERS)} callers sharing ${String(SHARED)} keys, no L1${tag}`, echo: { l1: false }, bento: { l1: false }, prepare: sharedKeys, run: l2Shared },
    { title: `miss + fill, \`getOrSet\` of a fresh key${tag}`, echo: {}, bento: { l1: 'shared' }, floor: true, run: missFill },
    { title: `miss + set, \`get\` then \`set\`${tag}`, echo: {}, bento: { l1: 'shared' }, floor: true, run: missSet },
    {
      title: `one hot key, ${String(CALLERS)} callers, no L1 (Echo coalesces them)${tag}`,
      echo: { l1: false },
      bento: { l1: false },
      prepare: async (s) => s.set('hot', value),
      run: (s) => loops(Math.ceil(L2_OPS / CALLERS), () => s.getOrSet('hot', fill)),
    },
  ];
}

const rows: Row[] = [...(PAYLOAD === 'records' ? [] : rowsOf('blob')), ...(PAYLOAD === 'blob' ? [] : rowsOf('records'))];

/** A row's cost, with the round trips it took: the server's read events (`INFO stats` total_reads_processed) per op. */
interface RowCost extends Cost {
  readonly roundTrips: number;
}

async function readEvents(side: Redis): Promise<number> {
  return Number(/total_reads_processed:(\d+)/.exec(await side.info('stats'))?.[1] ?? 0);
}

/** Who runs a row: Echo, bentocache, or (rows with a floor) the hand-rolled client. */
type Side = 'echo' | 'bento' | 'raw';

async function measure(row: Row, target: BenchTarget, side: Redis, which: Side, round: number, index: number): Promise<RowCost> {
  const ns = `${which[0] ?? ''}${String(index)}r${String(round)}`;
  const system = which === 'echo' ? await echo(target, ns, row.echo) : which === 'bento' ? bento(target, ns, row.bento) : handRolled(target, ns);
  try {
    await row.prepare?.(system, round);
    let ops = 0;
    const before = await readEvents(side);
    const cost = await metered(side, async () => (ops = await row.run(system, round)));
    // The meter's own INFO calls add at most five read events to thousands of operations.
    return { ...cost, roundTrips: ((await readEvents(side)) - before) / ops };
  } finally {
    await system.close();
  }
}

/** Writes on `a`, time until `b` hears: p99 in ms. */
async function invalidation(a: System, b: System): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < INVALIDATIONS; i++) {
    await a.set('inv', { ...VALUE, n: i });
    await b.get('inv');
    const heard = b.onInvalidated('inv');
    const t = performance.now();
    await a.set('inv', { ...VALUE, n: -i });
    await heard;
    times.push(performance.now() - t);
  }
  times.sort((x, y) => x - y);
  return times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] as number;
}

/** PROCESSES processes x STAMPEDE_CALLERS callers on one cold key: loader runs and wall ms. */
async function stampede(target: BenchTarget, side: Redis, system: string, round: number): Promise<{ runs: number; wallMs: number }> {
  const runsKey = `bench:runs:${system}:${String(round)}`;
  const peer = fileURLToPath(new URL('./lib/cache-peer.ts', import.meta.url));
  const children = Array.from({ length: PROCESSES }, () =>
    spawn(process.execPath, ['--conditions=@echo/source', '--import', 'tsx', peer], {
      env: { ...process.env, BENCH_URL: target.url, BENCH_SYSTEM: system, BENCH_CALLERS: String(STAMPEDE_CALLERS), BENCH_LOADER_MS: String(LOADER_MS), BENCH_RUNS_KEY: runsKey, BENCH_NS: `st${String(round)}` },
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
    return (): Promise<string> =>
      new Promise((resolve) => {
        const line = queue.shift();
        if (line !== undefined) resolve(line);
        else waiting.push(resolve);
      });
  });
  await Promise.all(lines.map((next) => next()));
  for (const child of children) child.stdin.write(`cold${String(round)}\n`);
  const answers = (await Promise.all(lines.map((next) => next()))).map((l) => JSON.parse(l) as { start: number; end: number });
  for (const child of children) child.kill('SIGKILL');
  const runs = await side.llen(runsKey);
  return { runs, wallMs: Math.max(...answers.map((a) => a.end)) - Math.min(...answers.map((a) => a.start)) };
}

const target = await acquireTarget();
const side = new Redis({ host: target.host, port: target.port, ...(target.password !== undefined ? { password: target.password } : {}) });
const costs = rows.map(() => ({ echo: [] as RowCost[], bento: [] as RowCost[], raw: [] as RowCost[] }));
const inv = { echo: [] as number[], bento: [] as number[] };
const stampedes = { echo: [] as string[], bento: [] as string[] };
try {
  for (let round = 0; round < ROUNDS; round++) {
    progress(`round ${String(round + 1)}/${String(ROUNDS)}`);
    // Interleaved: each row runs both systems back to back; who goes first alternates by round.
    const order: Side[] = round % 2 === 0 ? ['echo', 'bento'] : ['bento', 'echo'];
    // A row with a floor runs three sides; the hand-rolled one goes first, between or last by round.
    const withFloor = [...order];
    withFloor.splice(round % 3, 0, 'raw');
    for (const [index, row] of rows.entries()) {
      for (const which of row.floor === true ? withFloor : order) (costs[index] as Record<Side, RowCost[]>)[which].push(await measure(row, target, side, which, round, index));
    }
    const [e1, e2, b1, b2] = [await echo(target, `inv${String(round)}`), await echo(target, `inv${String(round)}`), bento(target, `inv${String(round)}`, { l1: 'shared' }), bento(target, `inv${String(round)}`, { l1: 'shared' })];
    inv.echo.push(await invalidation(e1, e2));
    inv.bento.push(await invalidation(b1, b2));
    for (const s of [e1, e2, b1, b2]) await s.close();
    const se = await stampede(target, side, 'echo', round);
    const sb = await stampede(target, side, 'bento', round);
    stampedes.echo.push(`${String(se.runs)} / ${String(se.wallMs)} ms`);
    stampedes.bento.push(`${String(sb.runs)} / ${String(sb.wallMs)} ms`);
  }
} finally {
  side.disconnect();
  await target.stop();
}

const med = (values: readonly number[]): string => fmt(spread(values).median);
const body = rows.map((row, i) => {
  const c = costs[i] as { echo: RowCost[]; bento: RowCost[] };
  const r = spread(pairedRatios(c.echo.map((x) => x.opsPerSec), c.bento.map((x) => x.opsPerSec)));
  const pair = (pick: (x: RowCost) => number): string => `${med(c.echo.map(pick))} / ${med(c.bento.map(pick))}`;
  return [row.title, `**${fmt(r.median)}x** (${fmt(r.min)}-${fmt(r.max)})`, pair((x) => x.opsPerSec), pair((x) => x.nodeUs), pair((x) => x.redisUs), pair((x) => x.commands), pair((x) => x.roundTrips)];
});
// The ceiling: what the hand-rolled client gets on the same rows, against bentocache and against Echo.
const floorBody = rows.flatMap((row, i) => {
  if (row.floor !== true) return [];
  const c = costs[i] as Record<Side, RowCost[]>;
  const ratio = (a: RowCost[], b: RowCost[]): string => {
    const r = spread(pairedRatios(a.map((x) => x.opsPerSec), b.map((x) => x.opsPerSec)));
    return `**${fmt(r.median)}x** (${fmt(r.min)}-${fmt(r.max)})`;
  };
  return [[row.title, ratio(c.raw, c.bento), ratio(c.echo, c.raw), med(c.raw.map((x) => x.opsPerSec)), med(c.raw.map((x) => x.nodeUs)), med(c.raw.map((x) => x.commands))]];
});
const ri = spread(pairedRatios(inv.bento, inv.echo));
body.push(['invalidation seen by another instance, p99 ms (ratio: bentocache / Echo)', `${fmt(ri.median)}x (${fmt(ri.min)}-${fmt(ri.max)})`, `${med(inv.echo)} / ${med(inv.bento)} ms`, '', '', '', '']);
body.push([`stampede, ${String(PROCESSES)} processes x ${String(STAMPEDE_CALLERS)} callers, ${String(LOADER_MS)} ms loader (loads / wall)`, 'see loads', `${stampedes.echo.join(', ')} vs ${stampedes.bento.join(', ')}`, '', '', '', '']);
const md = [
  '# Echo keyed cache vs BentoCache 1.6.1',
  '',
  `${String(ROUNDS)} interleaved rounds, ${String(CALLERS)} concurrent callers, ~5 KB JSON values ([blob]: one long string; [records]: 32 small records). Ratio: Echo / bentocache throughput in the same round, median (min-max). Per-op columns: Echo / bentocache, medians over rounds.`,
  '',
  table(['path', 'Echo / bentocache', 'ops/s', 'Node CPU µs/op', 'Redis CPU µs/op', 'commands/op', 'server reads/op'], body),
  '',
  'The fill and set rows, run a third time in each round by a hand-rolled ioredis client (a `Map` of JSON text as L1, `GET` then `SET … PX`, no lease, versions or coherence): the least work a cache that writes a value once and keeps its text does, so its ratio to bentocache is the ceiling for these rows.',
  '',
  table(['path', 'hand-rolled / bentocache', 'Echo / hand-rolled', 'hand-rolled ops/s', 'hand-rolled Node CPU µs/op', 'hand-rolled commands/op'], floorBody),
].join('\n');
publish('cache-latest.md', md);
