import { cpus } from 'node:os';
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import type { BenchTarget } from './target.js';

/** Calls per command name, from `INFO commandstats` (Lua-internal `redis.call`s are counted there). */
export type CommandCalls = ReadonlyMap<string, number>;

/**
 * The bench's own observer connection: flushes between runs and reads the server's counters. Its
 * own `INFO` calls land in `cmdstat_info`; {@link commandDelta} takes the one it made out again.
 */
export class Admin {
  readonly client: Redis;

  constructor(target: BenchTarget) {
    this.client = new Redis({
      host: target.host,
      port: target.port,
      db: target.db,
      ...(target.password === undefined ? {} : { password: target.password }),
      maxRetriesPerRequest: null,
      disableClientInfo: true,
    });
  }

  async flushAll(): Promise<void> {
    await this.client.call('FLUSHALL', 'SYNC');
  }

  async info(...sections: string[]): Promise<Map<string, string>> {
    const text = (await this.client.call('INFO', ...sections)) as string;
    const out = new Map<string, string>();
    for (const line of text.split(/\r?\n/)) {
      const at = line.indexOf(':');
      if (at > 0 && !line.startsWith('#')) out.set(line.slice(0, at), line.slice(at + 1));
    }
    return out;
  }

  /**
   * Command calls and the server's CPU time, read in one `INFO` so a snapshot costs the server one
   * call (taken out again by {@link snapshotDelta}).
   */
  async snapshot(): Promise<Snapshot> {
    const info = await this.info('commandstats', 'cpu', 'stats');
    const calls = new Map<string, number>();
    for (const [key, value] of info) {
      if (!key.startsWith('cmdstat_')) continue;
      const match = /(?:^|,)calls=(\d+)/.exec(value);
      calls.set(key.slice('cmdstat_'.length), match ? Number(match[1]) : 0);
    }
    const cpuSeconds = Number(info.get('used_cpu_user') ?? 0) + Number(info.get('used_cpu_sys') ?? 0);
    return { calls, cpuUs: cpuSeconds * 1e6, clientCpuUs: clientCpuUs(), reads: Number(info.get('total_reads_processed') ?? 0) };
  }

  async usedMemory(): Promise<number> {
    return Number((await this.info('memory')).get('used_memory'));
  }

  /** `MEMORY USAGE`; `samples` 0 counts every nested element exactly. */
  async memoryUsage(key: string, samples?: number): Promise<number> {
    const reply = samples === undefined ? await this.client.call('MEMORY', 'USAGE', key) : await this.client.call('MEMORY', 'USAGE', key, 'SAMPLES', samples);
    return reply === null ? 0 : Number(reply);
  }

  /** Every key matching `pattern`. */
  async keys(pattern: string): Promise<string[]> {
    const out: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = (await this.client.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)) as [string, string[]];
      cursor = next;
      out.push(...batch);
    } while (cursor !== '0');
    return out;
  }

  async serverVersion(): Promise<string> {
    return (await this.info('server')).get('redis_version') ?? 'unknown';
  }

  async close(): Promise<void> {
    await this.client.quit();
  }
}

/** What the server and this process had done at one moment. */
export interface Snapshot {
  readonly calls: CommandCalls;
  /** redis-server's user + system CPU time, µs. */
  readonly cpuUs: number;
  /** This Node process's user + system CPU time, µs. */
  readonly clientCpuUs: number;
  /**
   * The server's socket reads so far (`total_reads_processed`): one per burst a client sent, so the
   * round trips every client made, a pipelined burst counting once.
   */
  readonly reads: number;
}

/** What happened between two snapshots. */
export interface SnapshotDelta {
  readonly calls: Map<string, number>;
  readonly serverCpuUs: number;
  readonly clientCpuUs: number;
  /** Server socket reads: round trips, a pipelined burst counting once. */
  readonly reads: number;
}

export function clientCpuUs(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

export function snapshotDelta(before: Snapshot, after: Snapshot): SnapshotDelta {
  // The later snapshot's own INFO is one read.
  const reads = Math.max(0, after.reads - before.reads - 1);
  return { calls: commandDelta(before.calls, after.calls), serverCpuUs: after.cpuUs - before.cpuUs, clientCpuUs: after.clientCpuUs - before.clientCpuUs, reads };
}

/** Calls made between two snapshots, per command, less the one `INFO` the first snapshot made. */
export function commandDelta(before: CommandCalls, after: CommandCalls): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, calls] of after) {
    const delta = calls - (before.get(name) ?? 0) - (name === 'info' ? 1 : 0);
    if (delta > 0) out.set(name, delta);
  }
  return out;
}

export function totalCalls(delta: ReadonlyMap<string, number>): number {
  let sum = 0;
  for (const calls of delta.values()) sum += calls;
  return sum;
}

/** The run's header: date, Node, server version, CPU model and core count. */
export async function machineHeader(admin: Admin): Promise<string[]> {
  let cpu = cpus()[0]?.model ?? 'unknown';
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    if (line !== undefined) cpu = line.slice(line.indexOf(':') + 1).trim();
  } catch {
    // Not Linux: os.cpus() has it.
  }
  return [
    `- date: ${new Date().toISOString()}`,
    `- node: ${process.version}`,
    `- redis-server: ${await admin.serverVersion()}`,
    `- cpu: ${cpu}, ${cpus().length} cores`,
  ];
}
