import { clientUs, onRedis, perJob, perSecond, serverUs, tripsPerJob, type Phase } from './phase.js';
import { fmt, fmtRatio, pairedRatios, spread } from './stats.js';

/** Who is measured against whom, and what one operation is, as the goal lines name them. */
export interface Sides {
  /** Echo's side: `Echo`, or one mode of it (`retention`). */
  readonly echo: string;
  /** The side it is measured against: `BullMQ`, `raw`, `NATS JetStream`, `plain`. */
  readonly peer: string;
  /** One operation, singular: `job`, `record`. */
  readonly unit: string;
}

/** One of issue 25's throughput goals: Echo's phase against a peer's, per round, paired. */
export interface Goal {
  readonly label: string;
  readonly sides: Sides;
  /** The Echo/peer operations-per-second ratio the goal asks for; 1 for "hold" (Echo ahead). */
  readonly atLeast: number;
  /** A bound on Echo's server commands per operation that the same goal asks for. */
  readonly commandsAtMost?: number;
  readonly peer: readonly Phase[];
  readonly echo: readonly Phase[];
  /** Print the measured figures under a met goal too, not only under a missed one. */
  readonly always?: boolean;
}

/** One side's medians over the rounds, per operation. */
interface Figures {
  readonly node: number;
  readonly redis: number;
  readonly commands: number;
  readonly trips: number;
  /** Wall time per operation, µs. */
  readonly wall: number;
  /** False when the side's server is not the metered Redis: its Redis CPU, commands and trips are unknown. */
  readonly onRedis: boolean;
}

const median = (values: readonly number[]): number => spread(values).median;

function figures(phases: readonly Phase[]): Figures {
  const m = (f: (p: Phase) => number): number => median(phases.map(f));
  return { node: m(clientUs), redis: m(serverUs), commands: m(perJob), trips: m(tripsPerJob), wall: 1e6 / m(perSecond), onRedis: phases.every(onRedis) };
}

/** Server calls per operation by command over every round (sum of calls / sum of operations). */
export function callsPerOp(phases: readonly Phase[]): Map<string, number> {
  const ops = phases.reduce((sum, p) => sum + p.jobs, 0);
  const out = new Map<string, number>();
  for (const p of phases) for (const [name, calls] of p.commands) out.set(name, (out.get(name) ?? 0) + calls / ops);
  return out;
}

/** `xreadgroup 0.010, xack 0.010`: calls per operation by command, most first. */
export function callsText(calls: ReadonlyMap<string, number>): string {
  const parts = [...calls.entries()].sort((a, b) => b[1] - a[1]).map(([name, n]) => `${name} ${fmt(n)}`);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

/**
 * The measured figures of both sides, per operation (medians over the rounds), as indented lines:
 * Node CPU, Redis CPU, commands, round trips, and the CPU ceiling they allow.
 */
export function measuredLines(sides: Sides, echo: readonly Phase[], peer: readonly Phase[]): string[] {
  const { echo: E, peer: P, unit } = sides;
  const e = figures(echo);
  const p = figures(peer);
  if (!p.onRedis) {
    return [
      `  Measured per ${unit}: Node CPU ${fmt(e.node)} µs ${E} vs ${fmt(p.node)} µs ${P}; Redis CPU ${fmt(e.redis)} µs ${E} (${P}'s server CPU is not metered);`,
      `  commands ${fmt(e.commands)}, round trips (server socket reads) ${fmt(e.trips)} (${E}); wall time ${fmt(e.wall)} µs ${E} vs ${fmt(p.wall)} µs ${P}.`,
    ];
  }
  const ceiling = Math.max(p.node, p.redis) / Math.max(e.node, e.redis);
  const serial = (p.node + p.redis) / (e.node + e.redis);
  return [
    `  Measured per ${unit}: Node CPU ${fmt(e.node)} µs ${E} vs ${fmt(p.node)} µs ${P}; Redis CPU ${fmt(e.redis)} vs ${fmt(p.redis)} µs;`,
    `  commands ${fmt(e.commands)} vs ${fmt(p.commands)}; round trips (server socket reads) ${fmt(e.trips)} vs ${fmt(p.trips)}.`,
    `  CPU ceiling (each system at its busier side's pace, Node and Redis overlapped on two cores): ${fmtRatio(ceiling)}; with no overlap on either side: ${fmtRatio(serial)}.`,
  ];
}

/**
 * What would move a missed throughput goal. With both sides on the metered Redis, the CPU ceiling
 * is the ratio if each system ran at the pace of its busier side (Node or Redis, each on its own
 * core, perfectly overlapped): the peer's busier side's µs per operation over Echo's. It reads CPU
 * time only, so a loaded machine moves it little. When it is under the goal, CPU per operation sets
 * the ratio; when it is over, Echo loses the rest waiting (round trips not overlapped with the
 * client's work, or, on a loaded machine, other processes holding the cores). A peer whose server
 * is not metered (NATS) is judged by its wall time instead: the goal allows Echo that over the
 * ratio.
 */
function throughputMove(goal: Goal, e: Figures, p: Figures): string {
  const { echo: E, peer: P, unit } = goal.sides;
  const eBusier = Math.max(e.node, e.redis);
  const side = e.redis >= e.node ? 'Redis' : 'Node';
  const other = side === 'Redis' ? 'Node' : 'Redis';
  const waiting = `${fmt(e.wall - eBusier)} µs per ${unit} waiting (round trips not overlapped with the client's work, or other processes holding the cores on a loaded machine)`;
  if (!p.onRedis) {
    const budget = p.wall / goal.atLeast;
    return eBusier > budget
      ? `CPU sets it: the goal allows ${E} ${fmt(budget)} µs of wall time per ${unit} (${P}'s ${fmt(p.wall)} µs over ${goal.atLeast}); ${E}'s ${side} alone spends ${fmt(eBusier)} µs (${fmt((1 - budget / eBusier) * 100)}% less needed)`
      : `overlap sets it: ${E}'s busier side (${side}) spends ${fmt(eBusier)} µs per ${unit}, within the ${fmt(budget)} µs the goal allows (${P}'s ${fmt(p.wall)} µs over ${goal.atLeast}), but a ${unit} takes ${fmt(e.wall)} µs of wall time: ${waiting}`;
  }
  const pBusier = Math.max(p.node, p.redis);
  const ceiling = pBusier / eBusier;
  // µs per operation the goal allows Echo's busier side, against the peer's busier side.
  const budget = pBusier / goal.atLeast;
  return ceiling < goal.atLeast
    ? `CPU sets it: the goal allows ${E} ${fmt(budget)} µs per ${unit} on each side (${P}'s busier side, ${fmt(pBusier)} µs, over ${goal.atLeast}); ${E}'s ${side} spends ${fmt(eBusier)} µs (${fmt((1 - budget / eBusier) * 100)}% less needed) and its ${other} ${fmt(Math.min(e.node, e.redis))} µs, and both sides must then overlap fully`
    : `overlap sets it: the CPU allows ${fmtRatio(ceiling)}, but a ${unit} takes ${fmt(e.wall)} µs of wall time against ${fmt(eBusier)} µs on ${E}'s busier side: ${waiting}`;
}

/** What would take Echo's commands per operation under the bound: the commands it runs beyond the peer's. */
function commandsMove(goal: Goal, bound: number, commands: number): string {
  const { echo: E, peer: P, unit } = goal.sides;
  const mine = callsPerOp(goal.echo);
  const theirs = callsPerOp(goal.peer);
  const extra = new Map([...mine].map(([name, n]) => [name, n - (theirs.get(name) ?? 0)] as const).filter(([, n]) => n > 0.005));
  return `${E} runs ${fmt(commands)} per ${unit}, ${fmt(commands - bound)} over the bound; by command ${callsText(mine)}; above ${P}'s: ${callsText(extra)}`;
}

/**
 * The goal's line: met, or the measured reason it is not (Node and Redis CPU per operation on each
 * side, commands, round trips, the CPU ceiling) and what would move it. Every figure is a median
 * over the rounds; the ratio is taken within each round.
 */
export function goalLine(goal: Goal): string {
  const { echo: E, peer: P, unit } = goal.sides;
  if (goal.echo.length === 0 || goal.peer.length === 0) return `- **${goal.label}**: not measured (no ${goal.echo.length === 0 ? E : P} runs)`;
  const ratio = median(pairedRatios(goal.echo.map(perSecond), goal.peer.map(perSecond)));
  const e = figures(goal.echo);
  const p = figures(goal.peer);
  const bound = goal.commandsAtMost;
  const fast = ratio >= goal.atLeast;
  const lean = bound === undefined || e.commands <= bound;
  const head = `- **${goal.label}**: ${fmtRatio(ratio)}, goal ≥ ${goal.atLeast}x${bound === undefined ? '' : `; ${fmt(e.commands)} commands/${unit}, goal ≤ ${bound}`}`;
  if (fast && lean && goal.always !== true) return `${head}: **met**`;
  const lines = [`${head}: **${fast && lean ? 'met' : 'not met'}**.`, ...measuredLines(goal.sides, goal.echo, goal.peer)];
  if (!fast) lines.push(`  What would move it: ${throughputMove(goal, e, p)}.`);
  if (bound !== undefined && !lean) lines.push(`  What would move the commands: ${commandsMove(goal, bound, e.commands)}.`);
  return lines.join('\n');
}

/** A goal that bounds one measured figure from above: commands per record, a memory ratio. */
export interface Bound {
  readonly label: string;
  /** The figure, a median over the rounds; `NaN` when it was not measured. */
  readonly value: number;
  readonly atMost: number;
  /** How the figure and the bound print: `0.020`, `0.86x`. */
  readonly format: (value: number) => string;
  /** Printed when the bound is not held: the measured reason, one line each. */
  readonly measured: readonly string[];
  /** Printed when the bound is not held: what would move the figure under it. */
  readonly move: string;
}

/** The bound's line: met, or the measured reason it is not and what would move it. */
export function boundLine(bound: Bound): string {
  if (Number.isNaN(bound.value)) return `- **${bound.label}**: not measured`;
  const head = `- **${bound.label}**: ${bound.format(bound.value)}, goal ≤ ${bound.format(bound.atMost)}`;
  if (bound.value <= bound.atMost) return `${head}: **met**`;
  return [`${head}: **not met**.`, ...bound.measured.map((line) => (line.startsWith('  ') ? line : `  ${line}`)), `  What would move it: ${bound.move}.`].join('\n');
}
