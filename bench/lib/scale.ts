import { loadavg } from 'node:os';
import { fmt, fmtRatio, fmtSpread, spread } from './stats.js';
import { progress, publish, table } from './report.js';

/** One figure a scale curve reports for every size. */
export interface Figure {
  readonly name: string;
  /** True for rates (jobs/s); false for costs (µs per item, bytes per key). */
  readonly higherIsBetter: boolean;
}

/** What one size measured in one round: a value per figure name. */
export type Measured = Readonly<Record<string, number>>;

/** A curve: one dimension swept across sizes, each size measured once per round. */
export interface Curve {
  readonly title: string;
  /** Results file under `bench/results/`. */
  readonly file: string;
  /** What is swept, for the table's first column ("lanes", "queues", …). */
  readonly dimension: string;
  readonly sizes: readonly number[];
  readonly rounds: number;
  readonly figures: readonly Figure[];
  /** The figure the ratio largest/smallest is taken on (goal >= 0.9). */
  readonly headline: string;
  /** Lines printed under the title: what is measured and how. */
  readonly method: readonly string[];
  readonly measure: (size: number, round: number) => Promise<Measured>;
}

/** Ratio of the largest size to the smallest, taken so that 1.0 is flat and below 1 is worse. */
function scaled(figure: Figure, small: number, large: number): number {
  return figure.higherIsBetter ? large / small : small / large;
}

/**
 * Runs a curve: every round measures every size, in alternating order (smallest first, then largest
 * first), so a machine that gets busier during the run does not always penalise the same size.
 * Prints the table (median and min-max over the rounds) and, per figure, the ratio of the largest
 * size to the smallest taken within each round; the headline figure's ratio is the curve's verdict.
 */
export async function runCurve(curve: Curve): Promise<void> {
  const loadBefore = loadavg();
  const results = new Map<number, Measured[]>(curve.sizes.map((size) => [size, []]));
  for (let round = 0; round < curve.rounds; round++) {
    const order = round % 2 === 0 ? curve.sizes : [...curve.sizes].reverse();
    for (const size of order) {
      const measured = await curve.measure(size, round);
      results.get(size)?.push(measured);
      progress(`round ${round + 1}/${curve.rounds} ${curve.dimension} ${size.toLocaleString('en-US')}: ${curve.figures.map((f) => `${f.name} ${fmt(measured[f.name] ?? Number.NaN)}`).join(', ')}`);
    }
  }
  const loadAfter = loadavg();
  const of = (size: number, name: string): number[] => (results.get(size) ?? []).map((m) => m[name] ?? Number.NaN);
  const rows = curve.sizes.map((size) => [size.toLocaleString('en-US'), ...curve.figures.map((f) => fmtSpread(spread(of(size, f.name))))]);
  const small = curve.sizes[0] as number;
  const large = curve.sizes[curve.sizes.length - 1] as number;
  const ratios = curve.figures.map((f) => {
    const perRound = of(small, f.name).map((s, i) => scaled(f, s, of(large, f.name)[i] as number));
    return { figure: f, ratio: spread(perRound) };
  });
  const headline = ratios.find((r) => r.figure.name === curve.headline);
  const lines = [
    `# ${curve.title}`,
    '',
    `- date: ${new Date().toISOString()}; rounds: ${curve.rounds} (sizes alternated within each round)`,
    `- load average (1/5/15 min): ${loadBefore.map((l) => l.toFixed(2)).join(' / ')} before, ${loadAfter.map((l) => l.toFixed(2)).join(' / ')} after${loadBefore[0] !== undefined && loadBefore[0] > 2 ? ' (the machine was shared: read the CPU figures over the rates)' : ''}`,
    ...curve.method.map((m) => `- ${m}`),
    '',
    'Cells: median (min–max) over the rounds.',
    '',
    table([curve.dimension, ...curve.figures.map((f) => `${f.name} (${f.higherIsBetter ? 'higher' : 'lower'} is better)`)], rows),
    '',
    `Ratio largest/smallest (${large.toLocaleString('en-US')} vs ${small.toLocaleString('en-US')} ${curve.dimension}; 1.00 = flat, below 1 = the larger size costs more per item; taken within each round):`,
    '',
    table(['figure', 'ratio'], ratios.map((r) => [r.figure.name, fmtSpread(r.ratio, fmtRatio)])),
    '',
    headline === undefined ? '' : `**${curve.headline}: ${fmtRatio(headline.ratio.median)} largest/smallest, goal >= 0.9: ${headline.ratio.median >= 0.9 ? 'met' : 'not met'}**`,
  ];
  publish(curve.file, lines.join('\n'));
}
