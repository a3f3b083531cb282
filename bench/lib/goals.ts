import { clientUs, perJob, perSecond, serverUs, tripsPerJob, type Phase } from './phase.js';
import { fmt, fmtRatio, pairedRatios, spread } from './stats.js';

/** One of issue 25's throughput goals: Echo's phase against BullMQ's, per round, paired. */
export interface Goal {
  readonly label: string;
  /** The Echo/BullMQ jobs/s ratio the goal asks for. */
  readonly atLeast: number;
  readonly bull: readonly Phase[];
  readonly echo: readonly Phase[];
}

const median = (values: readonly number[]): number => spread(values).median;

/**
 * The goal's line: met, or the measured reason it is not and what would move it. Every figure is a
 * median over the rounds. The CPU ceiling is the ratio if each system ran at the pace of its busier
 * side (Node or Redis, each on its own core, perfectly overlapped): BullMQ's busier side's µs per
 * job over Echo's. It reads CPU time only, so a loaded machine moves it little. When it is under the
 * goal, CPU per job sets the ratio; when it is over, Echo loses the rest waiting (round trips not
 * overlapped with handlers, or, on a loaded machine, other processes holding the cores).
 */
export function goalLine(goal: Goal): string {
  const ratio = median(pairedRatios(goal.echo.map(perSecond), goal.bull.map(perSecond)));
  const head = `- **${goal.label}**: ${fmtRatio(ratio)}, goal ≥ ${goal.atLeast}x`;
  if (ratio >= goal.atLeast) return `${head}: **met**`;
  const m = (f: (p: Phase) => number, side: readonly Phase[]): number => median(side.map(f));
  const eNode = m(clientUs, goal.echo);
  const eRedis = m(serverUs, goal.echo);
  const bNode = m(clientUs, goal.bull);
  const bRedis = m(serverUs, goal.bull);
  const eBusier = Math.max(eNode, eRedis);
  const bBusier = Math.max(bNode, bRedis);
  const ceiling = bBusier / eBusier;
  const serial = (bNode + bRedis) / (eNode + eRedis);
  // µs per job the goal allows Echo's busier side, against BullMQ's busier side.
  const budget = bBusier / goal.atLeast;
  const side = eRedis >= eNode ? 'Redis' : 'Node';
  const other = side === 'Redis' ? 'Node' : 'Redis';
  const echoWall = 1e6 / m(perSecond, goal.echo);
  const move =
    ceiling < goal.atLeast
      ? `CPU sets it: the goal allows Echo ${fmt(budget)} µs per job on each side (BullMQ's busier side, ${fmt(bBusier)} µs, over ${goal.atLeast}); Echo's ${side} spends ${fmt(eBusier)} µs (${fmt((1 - budget / eBusier) * 100)}% less needed) and its ${other} ${fmt(Math.min(eNode, eRedis))} µs, and both sides must then overlap fully`
      : `overlap sets it: the CPU allows ${fmtRatio(ceiling)}, but a job takes ${fmt(echoWall)} µs of wall time against ${fmt(eBusier)} µs on Echo's busier side: ${fmt(echoWall - eBusier)} µs per job waiting (round trips not overlapped with handlers, or other processes holding the cores on a loaded machine)`;
  return [
    `${head}: **not met**.`,
    `  Measured per job: Node CPU ${fmt(eNode)} µs Echo vs ${fmt(bNode)} µs BullMQ; Redis CPU ${fmt(eRedis)} vs ${fmt(bRedis)} µs;`,
    `  commands ${fmt(m(perJob, goal.echo))} vs ${fmt(m(perJob, goal.bull))}; round trips (server socket reads) ${fmt(m(tripsPerJob, goal.echo))} vs ${fmt(m(tripsPerJob, goal.bull))}.`,
    `  CPU ceiling (each system at its busier side's pace, Node and Redis overlapped on two cores): ${fmtRatio(ceiling)}; with no overlap on either side: ${fmtRatio(serial)}.`,
    `  What would move it: ${move}.`,
  ].join('\n');
}
