import type { Admin, StreamInfo } from '@echo/dashboard';
import { FIXED_TYPES, formatKey, GoneError, queueKeys } from '@echo/protocol/extend';
import { NotFoundError } from './errors.js';
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
 * queue of zeros (or of a missing job), and a write never creates keys for a queue nobody runs. A
 * queue exists while any of its fixed keys or metrics counters does: `emq queues` finds queues by a
 * subset of these, so whatever it lists passes here.
 * @throws InvalidNameError for a bad name; NotFoundError when nothing of the queue is on the server.
 */
export async function requireQueue(admin: Admin, name: string): Promise<void> {
  const k = queueKeys(name);
  const keys = [...FIXED_TYPES.map((type) => formatKey({ kind: 'fixed', queue: name, type })), k.metricsCompleted, k.metricsFailed];
  // One slot: every key carries the queue's hash tag, so this is one call on a cluster too.
  const found = (await admin.connection.command('EXISTS', ...keys)) as number;
  if (found === 0) throw new NotFoundError(`no queue named ${JSON.stringify(name)} on this server (emq queues lists them)`);
}

/**
 * One stream of a queue, or a NotFoundError that names the stream: the dashboard's read reports a
 * missing stream as a bare `GoneError`, whose text speaks of a job.
 * @throws InvalidNameError for a bad queue or stream name; NotFoundError when the stream does not exist.
 */
export async function requireStream(admin: Admin, queue: string, name: string): Promise<StreamInfo> {
  try {
    return await admin.stream(queue, name);
  } catch (error) {
    if (error instanceof GoneError) throw new NotFoundError(`no stream named ${JSON.stringify(name)} in ${JSON.stringify(queue)} on this server (emq streams lists them)`);
    throw error;
  }
}
