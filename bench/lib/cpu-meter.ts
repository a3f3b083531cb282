import type { Redis } from 'ioredis';

/** What one measured run cost, per operation, on each side of the wire. */
export interface Cost {
  /** Operations per second, wall clock. */
  readonly opsPerSec: number;
  /** Node CPU (user + system, this process) per operation, µs. */
  readonly nodeUs: number;
  /** Redis CPU (`INFO cpu`: used_cpu_user + used_cpu_sys of the server) per operation, µs. */
  readonly redisUs: number;
  /** Commands the server ran per operation (`INFO commandstats` calls, commands run inside scripts included). */
  readonly commands: number;
}

interface ServerCounters {
  readonly cpuUs: number;
  readonly calls: number;
}

async function serverCounters(side: Redis): Promise<ServerCounters> {
  const [cpu, stats] = await Promise.all([side.info('cpu'), side.info('commandstats')]);
  const field = (name: string): number => Number(new RegExp(`${name}:([0-9.]+)`).exec(cpu)?.[1] ?? 0);
  let calls = 0;
  for (const match of stats.matchAll(/cmdstat_([a-z|_-]+):calls=(\d+)/g)) {
    // The meter's own INFO calls are not the system's work.
    if (match[1] !== 'info') calls += Number(match[2]);
  }
  return { cpuUs: (field('used_cpu_user') + field('used_cpu_sys')) * 1e6, calls };
}

/**
 * Runs `work` (which answers how many operations it did) and measures its wall time, this
 * process's CPU and the server's CPU and command count over it. `side` is a connection used only
 * for the meter.
 */
export async function metered(side: Redis, work: () => Promise<number>): Promise<Cost> {
  const server = await serverCounters(side);
  const cpu = process.cpuUsage();
  const t = performance.now();
  const ops = await work();
  const wallMs = performance.now() - t;
  const used = process.cpuUsage(cpu);
  const after = await serverCounters(side);
  return {
    opsPerSec: ops / (wallMs / 1000),
    nodeUs: (used.user + used.system) / ops,
    redisUs: (after.cpuUs - server.cpuUs) / ops,
    commands: (after.calls - server.calls) / ops,
  };
}
