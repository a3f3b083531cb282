import { InvalidArgumentError, queueKeys } from '@echo/protocol/queue';
import type { ListState, Queue as EchoQueue } from '@echo/queue';
import { openEnvelope, type Envelope } from '../envelope.js';
import { schedulerJobIds } from '../schedulers/job-schedulers.js';
import { ParentsElsewhere } from '../flow/parents-elsewhere.js';

/** The job types BullMQ's `clean` takes. */
export type CleanType = 'completed' | 'failed' | 'wait' | 'waiting' | 'paused' | 'prioritized' | 'delayed' | 'active';

const SET_OF: Readonly<Record<CleanType, ListState>> = {
  completed: 'completed', failed: 'dead', wait: 'pending', waiting: 'pending', paused: 'pending', prioritized: 'pending', delayed: 'scheduled', active: 'active',
};

/** How many rows one listing reads while it looks for jobs to clean. */
const PAGE = 1000;

/** The BullMQ event the drop-in publishes on the queue's events channel, beside Echo's own. */
export const DROPIN_EVENT = 'bullmq';

/** Checks `clean`'s arguments (BullMQ's types, a grace of ms >= 0, a limit >= 0). */
export function checkClean(grace: number, limit: number, type: string): asserts type is CleanType {
  if (!Object.hasOwn(SET_OF, type)) throw new InvalidArgumentError('type', `must be one of ${Object.keys(SET_OF).join(', ')}`);
  if (!Number.isFinite(grace) || grace < 0) throw new InvalidArgumentError('grace', 'must be a number of ms >= 0');
  if (!Number.isSafeInteger(limit) || limit < 0) throw new InvalidArgumentError('limit', 'must be an integer >= 0 (0: no limit)');
}

/**
 * BullMQ's `clean`: removes jobs of `type` older than `grace` ms (finished jobs by when they
 * finished, the others by when they were created), at most `limit` (0: all), and answers their
 * ids. Each removal is Echo's own atomic `remove`, which refuses a job a worker holds: an active
 * job is never cleaned from under its worker (BullMQ leaves locked jobs too). Publishes BullMQ's
 * `cleaned` event with the count, on the queue's events channel, when it removed any.
 */
export async function cleanJobs(queue: EchoQueue<Envelope>, grace: number, limit: number, type: CleanType): Promise<string[]> {
  const olderThan = Date.now() - grace;
  const state = SET_OF[type];
  const finished = state === 'completed' || state === 'dead';
  const removed: string[] = [];
  const parents = new ParentsElsewhere(queue);
  // A job scheduler's next job stays, as BullMQ's clean leaves it.
  const kept = state === 'pending' || state === 'scheduled' ? await schedulerJobIds(queue) : new Set<string>();
  // Removing a flow's last waiting child releases its parent into the waiting set, behind the pages
  // already read: another pass cleans it as BullMQ's does, until a pass removes nothing.
  for (let pass = removed.length; ; pass = removed.length) {
    await cleanPass(queue, { state, type, finished, olderThan, limit, kept, parents }, removed);
    if (state !== 'pending' || removed.length === pass || (limit !== 0 && removed.length >= limit)) break;
  }
  await parents.forget();
  if (removed.length > 0) await publishDropInEvent(queue, 'cleaned', { count: String(removed.length) });
  return removed;
}

/** What one clean looks for: the set, BullMQ's type, the age bound, the limit, the ids it leaves. */
interface CleanScope {
  readonly state: ListState;
  readonly type: CleanType;
  readonly finished: boolean;
  readonly olderThan: number;
  readonly limit: number;
  readonly kept: ReadonlySet<string>;
  /** Where the open jobs removed had a parent in another queue, counted down when the clean ends. */
  readonly parents: ParentsElsewhere;
}

/** One walk over the set of the scope, removing what is due into `removed` (up to its limit). */
async function cleanPass(queue: EchoQueue<Envelope>, scope: CleanScope, removed: string[]): Promise<void> {
  const { state, type, finished, olderThan, limit, kept, parents } = scope;
  for (let offset = 0; limit === 0 || removed.length < limit; offset += PAGE) {
    const page = await queue.listJobs(state, { offset, limit: PAGE });
    const due = page.jobs.flatMap(({ record }) => {
      if (!record) return [];
      const envelope = openEnvelope(record.payload);
      if (state === 'pending' && (type === 'prioritized') !== (envelope.o?.priority ?? 0) > 0) return [];
      if (envelope.i !== undefined && kept.has(envelope.i)) return [];
      const at = finished ? record.finishedAt : envelope.t;
      return at !== undefined && at <= olderThan ? [{ record, id: envelope.i ?? record.id }] : [];
    });
    const take = limit === 0 ? due : due.slice(0, limit - removed.length);
    const outcomes = await Promise.all(take.map(({ record }) => queue.remove(record.id).then(() => true, () => false)));
    take.forEach(({ id, record }, i) => {
      if (outcomes[i] !== true) return;
      removed.push(id);
      if (!finished) parents.note(record);
    });
    // Removed rows leave the set: the next page starts where this one's kept rows end.
    offset -= outcomes.filter(Boolean).length;
    if (page.jobs.length < PAGE) break;
  }
}

/**
 * Publishes one of the drop-in's own events (BullMQ's `cleaned`, `paused`, `resumed`, which Echo's
 * scripts do not publish) on the queue's events channel, beside Echo's, for `QueueEvents` to hear.
 */
export async function publishDropInEvent(queue: EchoQueue<Envelope>, name: string, fields: Readonly<Record<string, string>> = {}): Promise<void> {
  const message = JSON.stringify({ event: DROPIN_EVENT, job: '', name, ...fields });
  await queue.connection.command('PUBLISH', queueKeys(queue.name).events, message);
}
