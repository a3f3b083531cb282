import type { Cost } from './cpu-meter.js';
import { spread } from './stats.js';

/**
 * Variants measured against each other on both sides of the wire: each run answers its {@link Cost}
 * (Node CPU, Redis CPU and server commands per operation, and its rate). CPU and commands per
 * operation hold on a loaded machine; the rate is printed with the load average beside it.
 */
export interface CostRounds<K extends string> {
  readonly runs: Readonly<Record<K, () => Promise<Cost>>>;
  /** The first round's order, which is also the warm-up's; every other round runs it reversed. */
  readonly order: readonly K[];
  readonly rounds: number;
  /** How a variant prints when not by its key. */
  readonly labels?: Readonly<Partial<Record<K, string>>>;
  /** The ratios to print, numerator first, each taken within its round. */
  readonly ratios: readonly (readonly [K, K])[];
  /** What one operation is, in `µs/record`. */
  readonly unit: string;
  /** Runs after the warm-up and after every round, e.g. to drop what the runs wrote. */
  readonly reset?: () => Promise<void>;
}

/** One warm-up pass (not kept), then the interleaved rounds; answers each round's cost by variant. */
export async function runCostRounds<K extends string>(spec: CostRounds<K>): Promise<Record<K, Cost>[]> {
  const pass = async (order: readonly K[]): Promise<Record<K, Cost>> => {
    const row: Partial<Record<K, Cost>> = {};
    for (const which of order) row[which] = await spec.runs[which]();
    await spec.reset?.();
    return row as Record<K, Cost>;
  };
  await pass(spec.order);
  const rows: Record<K, Cost>[] = [];
  for (let round = 0; round < spec.rounds; round++) rows.push(await pass(round % 2 === 0 ? spec.order : [...spec.order].reverse()));
  return rows;
}

const MEASURES: readonly (readonly [string, (c: Cost) => number, number])[] = [
  ['Node CPU µs', (c) => c.nodeUs, 2],
  ['Redis CPU µs', (c) => c.redisUs, 2],
  ['commands', (c) => c.commands, 4],
  ['rate /s', (c) => c.opsPerSec, 0],
];

/** Prints every round, then the medians over the rounds (ratios: the median of the per-round ratios), with the load average. */
export function printCostRounds<K extends string>(spec: CostRounds<K>, rows: readonly Record<K, Cost>[], note: string, loadAverage: string): void {
  const name = (k: K): string => spec.labels?.[k] ?? k;
  const line = (value: (k: K, pick: (c: Cost) => number) => number, ratio: (a: K, b: K, pick: (c: Cost) => number) => number): string =>
    MEASURES.map(([label, pick, digits]) => {
      const figures = spec.order.map((k) => `${name(k)} ${value(k, pick).toFixed(digits)}`).join(', ');
      const ratios = spec.ratios.map(([a, b]) => `${name(a)}/${name(b)} ${ratio(a, b, pick).toFixed(2)}`).join(', ');
      return `  ${label} per ${spec.unit}: ${figures}; ${ratios}`;
    }).join('\n');
  for (const [i, row] of rows.entries()) {
    console.log(`round ${i + 1}:\n${line((k, pick) => pick(row[k]), (a, b, pick) => pick(row[a]) / pick(row[b]))}`);
  }
  const median = (pick: (row: Record<K, Cost>) => number): number => spread(rows.map(pick)).median;
  console.log(`median (${note}; load average ${loadAverage}):\n${line((k, pick) => median((r) => pick(r[k])), (a, b, pick) => median((r) => pick(r[a]) / pick(r[b])))}`);
}
