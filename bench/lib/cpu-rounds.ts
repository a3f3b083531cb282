import { spread } from './stats.js';

/**
 * Node CPU (user + system, this process) per operation of `body`, µs. CPU time rather than wall
 * time, so a busy machine moves it far less than a rate.
 */
export async function cpuPerOp(ops: number, body: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await body();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / ops;
}

/** Variants measured against each other, each run answering its Node CPU µs per operation. */
export interface CpuRounds<K extends string> {
  readonly runs: Readonly<Record<K, () => Promise<number>>>;
  /** The first round's order, which is also the warm-up's; every other round runs it reversed, so no variant always goes first. */
  readonly order: readonly K[];
  readonly rounds: number;
  /** How a variant prints when not by its key: `raw same args`. */
  readonly labels?: Readonly<Partial<Record<K, string>>>;
  /** The ratios to print, numerator first, each taken within its round: `['echo', 'raw']` prints `echo/raw`. */
  readonly ratios: readonly (readonly [K, K])[];
  /** What one operation is, in `µs/record`. */
  readonly unit: string;
  /** Runs after the warm-up and after every round, e.g. to drop what the runs wrote. */
  readonly reset?: () => Promise<void>;
}

/** One warm-up pass (not kept), then the interleaved rounds; answers each round's µs per operation by variant. */
export async function runCpuRounds<K extends string>(spec: CpuRounds<K>): Promise<Record<K, number>[]> {
  const pass = async (order: readonly K[]): Promise<Record<K, number>> => {
    const row: Partial<Record<K, number>> = {};
    for (const which of order) row[which] = await spec.runs[which]();
    await spec.reset?.();
    return row as Record<K, number>;
  };
  await pass(spec.order);
  const rows: Record<K, number>[] = [];
  for (let round = 0; round < spec.rounds; round++) rows.push(await pass(round % 2 === 0 ? spec.order : [...spec.order].reverse()));
  return rows;
}

/** Prints every round, then the medians over the rounds (ratios: the median of the per-round ratios), `note` closing the last line. */
export function printCpuRounds<K extends string>(spec: CpuRounds<K>, rows: readonly Record<K, number>[], note: string): void {
  const figures = (value: (which: K) => number): string => spec.order.map((which) => `${spec.labels?.[which] ?? which} ${value(which).toFixed(2)}`).join(', ');
  const ratios = (value: (a: K, b: K) => number): string => spec.ratios.map(([a, b]) => `${a}/${b} ${value(a, b).toFixed(2)}`).join(', ');
  for (const [i, row] of rows.entries()) {
    console.log(`round ${i + 1}: ${figures((k) => row[k])} µs/${spec.unit}; ${ratios((a, b) => row[a] / row[b])}`);
  }
  const median = (pick: (row: Record<K, number>) => number): number => spread(rows.map(pick)).median;
  console.log(`median µs/${spec.unit}: ${figures((k) => median((r) => r[k]))}; ${ratios((a, b) => median((r) => r[a] / r[b]))} (${note})`);
}
