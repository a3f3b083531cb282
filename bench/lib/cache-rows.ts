/**
 * The rows of `cache-vs-bentocache.ts` and how one side of one row is measured. The parent and each
 * child it spawns (`cache-side.ts`) read the same command line, so both build the same rows.
 */
import type { Redis } from 'ioredis';
import { type BentoShape, type System, type Value, RECORDS, VALUE, blob, bento, echo, handRolled, records, wire } from './cache-systems.js';
import { type Cost, metered } from './cpu-meter.js';
import { boolOption, intOption, stringOption, textOption } from './options.js';
import type { BenchTarget } from './target.js';

// A bare `--quick` is a flag; `--quick=false` or QUICK=0 turn it off.
export const quick = process.argv.includes('--quick') || boolOption('quick', false);
export const ROUNDS = intOption('rounds', quick ? 2 : 5);
const PAYLOAD = stringOption('payload', 'both', ['both', 'blob', 'records']);
/** Keys the callers of a "sharing keys" row spread over (CALLERS / SHARED callers per key). */
const SHARED = intOption('shared-keys', 5);
export const CALLERS = intOption('callers', 50);
const HIT_OPS = intOption('hit-ops', quick ? 20_000 : 200_000);
const L2_OPS = intOption('l2-ops', quick ? 2_000 : 20_000);
const MISS_OPS = intOption('miss-ops', quick ? 1_000 : 10_000);

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
export interface Row {
  readonly title: string;
  readonly echo: Parameters<typeof echo>[2];
  readonly bento: BentoShape;
  /** The row also runs the hand-rolled clients ({@link handRolled}, {@link wire}): their ratios are printed beside Echo's. */
  readonly floor?: true;
  /** Untimed preparation (writes the keys a read row reads). */
  prepare?(system: System, round: number): Promise<void>;
  /** The work; `round` names the keys a miss row writes, so a warm-up (another round) misses too. */
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

/** `--only <text>`: the rows whose title holds the text (case-insensitive), for a run on what changed. */
const ONLY = textOption('only').toLowerCase();

/** Whether `--only` picks the row titled `title`. */
export function picked(title: string): boolean {
  return title.toLowerCase().includes(ONLY);
}

/** Every row this run measures (`--payload blob|records` runs one payload's, `--only` the matching titles). */
export const rows: readonly Row[] = [...(PAYLOAD === 'records' ? [] : rowsOf('blob')), ...(PAYLOAD === 'blob' ? [] : rowsOf('records'))].filter((row) => picked(row.title));

/** Who runs a row: Echo, bentocache, or (rows with a floor) the hand-rolled client on ioredis or on no driver. */
export type Side = 'echo' | 'bento' | 'raw' | 'wire';

/** A row's cost, with the round trips it took: the server's read events (`INFO stats` total_reads_processed) per op. */
export interface RowCost extends Cost {
  readonly roundTrips: number;
}

async function readEvents(side: Redis): Promise<number> {
  return Number(/total_reads_processed:(\d+)/.exec(await side.info('stats'))?.[1] ?? 0);
}

/**
 * One side of one row in this process: opens the system, prepares, runs the row once untimed (a
 * warm-up on other keys, so the code under test is compiled as in a running service), then runs it
 * measured. `side` is a connection used only for the meter.
 */
export async function measureSide(row: Row, target: BenchTarget, side: Redis, which: Side, round: number, index: number): Promise<RowCost> {
  const ns = `${which[0] ?? ''}${String(index)}r${String(round)}`;
  const system = which === 'echo' ? await echo(target, ns, row.echo) : which === 'bento' ? bento(target, ns, row.bento) : which === 'raw' ? handRolled(target, ns) : await wire(target, ns);
  try {
    await row.prepare?.(system, round);
    await row.run(system, round + ROUNDS);
    let ops = 0;
    const before = await readEvents(side);
    const cost = await metered(side, async () => (ops = await row.run(system, round)));
    // The meter's own INFO calls add at most five read events to thousands of operations.
    return { ...cost, roundTrips: ((await readEvents(side)) - before) / ops };
  } finally {
    await system.close();
  }
}
