import type { Admin } from '@echo/dashboard';
import { NotFoundError, UsageError } from './exit-codes.js';
import type { CliIo } from './io.js';

/** What every command gets: the IO, the output mode, and a connection opened on first use. */
export interface CommandContext {
  readonly io: CliIo;
  /** `--json`: print the machine-readable shape instead of tables. */
  readonly json: boolean;
  /** Connects on the first call, so `--help` and usage errors never touch the network. */
  admin(): Promise<Admin>;
}

/**
 * Refuses a queue name with no keys on the server, so a typo reads as "not found" instead of a
 * queue of zeros, and a write never creates keys for a queue nobody runs.
 */
export async function requireQueue(admin: Admin, name: string): Promise<void> {
  const k = (await admin.queue(name)).keys;
  const found = (await admin.connection.command('EXISTS', k.meta, k.pending, k.active, k.schedule, k.dead, k.metricsCompleted, k.metricsFailed, k.repeat)) as number;
  if (found === 0) throw new NotFoundError(`no queue named ${JSON.stringify(name)} on this server (emq queues lists them)`);
}

/** A whole number from a flag, within bounds. */
export function intFlag(name: string, value: unknown, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be a whole number in ${min}..${max}`);
  return n;
}
