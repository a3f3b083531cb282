/**
 * Echo's keyed cache namespace vs BentoCache 1.6.1 on the same server, every row of the keyed-cache
 * table paired in the same run: rounds interleave the two systems (which goes first alternates), and
 * each row reports the median (min-max) of the per-round ratios with what each side cost per
 * operation: Node CPU µs (process.cpuUsage), Redis CPU µs (INFO cpu), server commands (INFO
 * commandstats, commands run inside scripts included) and server read events (INFO stats
 * total_reads_processed: how many times the server read a client socket, so round trips, a
 * pipeline or a batch counting once). Each side of each row runs in a process of its own
 * (`lib/cache-side.ts`, which says why), once untimed on other keys and then measured.
 * CALLERS concurrent callers, two ~5 KB JSON
 * values: the package's shape (one long string, `blob`) and issue 37's (32 small records, `records`),
 * each with its rows; `--payload blob|records` runs one. The fill and set rows also run a hand-rolled
 * client in each round, on ioredis (`handRolled`: the ceiling for a cache on ioredis that writes a
 * value once and keeps its text in L1) and on no driver (`wire`: the floor, what the JSON, the kept
 * text and the socket cost), each printed as its own ratio to bentocache. The fill and set rows
 * write a new value each time (the loader builds it, as a real one does); the others read one.
 *
 *   pnpm bench:cache                          # 5 rounds, about 9 minutes
 *   pnpm bench:cache --payload records        # issue 37's rows only, about 5 minutes
 *   pnpm bench:cache --quick                  # smoke run (small sizes, 2 rounds)
 *   pnpm bench:cache --only "miss + set"      # the rows whose title holds the text
 *   pnpm bench:cache --rounds 5 --hit-ops 400000
 */
import { Redis } from 'ioredis';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CALLERS, ROUNDS, picked, quick, rows, type RowCost, type Side } from './lib/cache-rows.js';
import { type System, VALUE, bento, echo } from './lib/cache-systems.js';
import { intOption } from './lib/options.js';
import { progress, publish, table } from './lib/report.js';
import { fmt, pairedRatios, spread } from './lib/stats.js';
import { acquireTarget, type BenchTarget } from './lib/target.js';

const INVALIDATIONS = intOption('invalidations', quick ? 30 : 100);
const PROCESSES = intOption('processes', 4);
const STAMPEDE_CALLERS = intOption('stampede-callers', 100);
const LOADER_MS = intOption('loader-ms', 200);
const INVALIDATION_TITLE = 'invalidation seen by another instance, p99 ms (ratio: bentocache / Echo)';
const STAMPEDE_TITLE = `stampede, ${String(PROCESSES)} processes x ${String(STAMPEDE_CALLERS)} callers, ${String(LOADER_MS)} ms loader (loads / wall)`;

/**
 * How children resolve Echo's packages: as this process does. `pnpm bench:cache` builds them and runs
 * the built packages, as an application installs them (and as bentocache runs); with
 * `--conditions=@echo/source` they run from source through tsx, which adds a `__name` call per
 * closure created (2-8% fewer fills per second, three interleaved pairs alone).
 */
const RESOLUTION = process.execArgv.filter((arg) => arg.startsWith('--conditions'));

/**
 * One side of one row, measured in a process of its own (`lib/cache-side.ts`, which says why), on a
 * server emptied first: a round writes about 1 GB of 5 KB entries that live 10 minutes, and a server
 * that keeps growing charges its allocation to whichever side runs later.
 */
async function measure(target: BenchTarget, side: Redis, which: Side, round: number, index: number): Promise<RowCost> {
  await side.call('FLUSHALL', 'SYNC');
  const script = fileURLToPath(new URL('./lib/cache-side.ts', import.meta.url));
  const child = spawn(process.execPath, [...RESOLUTION, '--import', 'tsx', script, ...process.argv.slice(2)], {
    env: { ...process.env, REDIS_URL: target.url, BENCH_CHILD: JSON.stringify({ index, which, round }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(JSON.parse(out) as RowCost);
      else reject(new Error(`${which} on row ${String(index)} (round ${String(round)}) exited with ${String(code)}`));
    });
  });
}

/**
 * Writes on `a`, time until `b` hears: p99 in ms. As many again (at least 30) go first, untimed:
 * this process runs no other row, so its first invalidations would time the compiler (measured: a
 * p99 of 4.7 ms after 30 untimed, 1.3-2.6 after 300, on both sides).
 */
async function invalidation(a: System, b: System): Promise<number> {
  const times: number[] = [];
  const warm = Math.max(30, INVALIDATIONS);
  for (let i = -warm; i < INVALIDATIONS; i++) {
    await a.set('inv', { ...VALUE, n: i });
    await b.get('inv');
    const heard = b.onInvalidated('inv');
    const t = performance.now();
    await a.set('inv', { ...VALUE, n: -i });
    await heard;
    if (i >= 0) times.push(performance.now() - t);
  }
  times.sort((x, y) => x - y);
  return times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] as number;
}

/** PROCESSES processes x STAMPEDE_CALLERS callers on one cold key: loader runs and wall ms. */
async function stampede(target: BenchTarget, side: Redis, system: string, round: number): Promise<{ runs: number; wallMs: number }> {
  const runsKey = `bench:runs:${system}:${String(round)}`;
  const peer = fileURLToPath(new URL('./lib/cache-peer.ts', import.meta.url));
  const children = Array.from({ length: PROCESSES }, () =>
    spawn(process.execPath, [...RESOLUTION, '--import', 'tsx', peer], {
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
if (target.external) progress(`using REDIS_URL ${target.host}:${String(target.port)}; it is FLUSHALLed before each measurement`);
const costs = rows.map(() => ({ echo: [] as RowCost[], bento: [] as RowCost[], raw: [] as RowCost[], wire: [] as RowCost[] }));
const inv = { echo: [] as number[], bento: [] as number[] };
const stampedes = { echo: [] as string[], bento: [] as string[] };
try {
  for (let round = 0; round < ROUNDS; round++) {
    progress(`round ${String(round + 1)}/${String(ROUNDS)}`);
    // Interleaved: each row runs both systems back to back; who goes first alternates by round.
    const order: Side[] = round % 2 === 0 ? ['echo', 'bento'] : ['bento', 'echo'];
    // A row with a floor runs four sides; the two hand-rolled ones take turns at each place by round.
    const withFloor = [...order];
    withFloor.splice(round % 3, 0, 'raw');
    withFloor.splice((round + 2) % 4, 0, 'wire');
    for (const [index, row] of rows.entries()) {
      for (const which of row.floor === true ? withFloor : order) (costs[index] as Record<Side, RowCost[]>)[which].push(await measure(target, side, which, round, index));
    }
    if (picked(INVALIDATION_TITLE)) {
      const [e1, e2, b1, b2] = [await echo(target, `inv${String(round)}`), await echo(target, `inv${String(round)}`), bento(target, `inv${String(round)}`, { l1: 'shared' }), bento(target, `inv${String(round)}`, { l1: 'shared' })];
      inv.echo.push(await invalidation(e1, e2));
      inv.bento.push(await invalidation(b1, b2));
      for (const s of [e1, e2, b1, b2]) await s.close();
    }
    if (picked(STAMPEDE_TITLE)) {
      const se = await stampede(target, side, 'echo', round);
      const sb = await stampede(target, side, 'bento', round);
      stampedes.echo.push(`${String(se.runs)} / ${String(se.wallMs)} ms`);
      stampedes.bento.push(`${String(sb.runs)} / ${String(sb.wallMs)} ms`);
    }
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
// The ceiling and the floor: what the hand-rolled clients get on the same rows, against bentocache and against Echo.
const floorBody = rows.flatMap((row, i) => {
  if (row.floor !== true) return [];
  const c = costs[i] as Record<Side, RowCost[]>;
  const ratio = (a: RowCost[], b: RowCost[]): string => {
    const r = spread(pairedRatios(a.map((x) => x.opsPerSec), b.map((x) => x.opsPerSec)));
    return `**${fmt(r.median)}x** (${fmt(r.min)}-${fmt(r.max)})`;
  };
  const pair = (pick: (x: RowCost) => number): string => `${med(c.raw.map(pick))} / ${med(c.wire.map(pick))}`;
  return [[row.title, ratio(c.raw, c.bento), ratio(c.echo, c.raw), ratio(c.wire, c.bento), ratio(c.echo, c.wire), pair((x) => x.opsPerSec), pair((x) => x.nodeUs), pair((x) => x.roundTrips)]];
});
if (inv.echo.length > 0) {
  const ri = spread(pairedRatios(inv.bento, inv.echo));
  body.push([INVALIDATION_TITLE, `${fmt(ri.median)}x (${fmt(ri.min)}-${fmt(ri.max)})`, `${med(inv.echo)} / ${med(inv.bento)} ms`, '', '', '', '']);
}
if (stampedes.echo.length > 0) body.push([STAMPEDE_TITLE, 'see loads', `${stampedes.echo.join(', ')} vs ${stampedes.bento.join(', ')}`, '', '', '', '']);
const md = [
  '# Echo keyed cache vs BentoCache 1.6.1',
  '',
  `${String(ROUNDS)} interleaved rounds, ${String(CALLERS)} concurrent callers, ~5 KB JSON values ([blob]: one long string; [records]: 32 small records). Ratio: Echo / bentocache throughput in the same round, median (min-max). Per-op columns: Echo / bentocache, medians over rounds.`,
  '',
  table(['path', 'Echo / bentocache', 'ops/s', 'Node CPU µs/op', 'Redis CPU µs/op', 'commands/op', 'server reads/op'], body),
  '',
  'The fill and set rows, run a third and a fourth time in each round by a hand-rolled client (a `Map` of JSON text as L1, `GET` then `SET … PX`, no lease, versions or coherence): the least work a cache that writes a value once and keeps its text does. Once on ioredis, each command sent as asked (the ceiling for a client on ioredis); once on no driver at all, the commands of each tick in one socket write (the wire floor: what is left of the row once a client spends nothing beyond the JSON, the text L1 keeps and the socket). Per-op columns: on ioredis / on no driver.',
  '',
  table(['path', 'ioredis hand-rolled / bentocache', 'Echo / ioredis hand-rolled', 'wire floor / bentocache', 'Echo / wire floor', 'ops/s', 'Node CPU µs/op', 'server reads/op'], floorBody),
].join('\n');
publish('cache-latest.md', md);
