import { InvalidArgumentError } from '@echo/protocol/queue';
import type { Queue as EchoQueue } from '@echo/queue';
import type { Envelope } from '../envelope.js';
import { dependencies } from '../flow/dependencies.js';
import { qualifiedNameOf } from '../ids.js';
import { Job } from '../job.js';
import { recordOfJobId } from '../job-lookup.js';

/** One child in `queue.getDependencies`'s answer: its BullMQ key and, when processed, its value. */
export interface DependencyItem {
  /** The child's key, `bull:<queue>:<id>`. */
  readonly id: string;
  /** The child's return value (processed children only). */
  readonly v?: unknown;
}

/** `queue.getDependencies`'s answer: a page of children, their jobs, and how many there are in all. */
export interface DependencyList {
  /** The children of the page. */
  readonly items: DependencyItem[];
  /** The page's children as jobs (as `job.toJSON()` shows them, with `delay`, `priority` and the parent). */
  readonly jobs: Record<string, unknown>[];
  /** How many children of the kind the parent has. */
  readonly total: number;
}

/**
 * BullMQ's `queue.getDependencies(parentId, type, start, end)`: the parent's processed (completed)
 * or pending (still open) children, `start`..`end` inclusive (`end` -1: to the last). A parent that
 * does not exist has none. Children in this queue are read as jobs; a child in another queue is
 * listed in `items` but has no job in `jobs` (this queue cannot read another's rows).
 */
export async function dependencyList(queue: EchoQueue<Envelope>, parentId: string, type: 'processed' | 'pending', start: number, end: number): Promise<DependencyList> {
  // Checked as a string: JavaScript callers are not held to the type.
  if ((type as string) !== 'processed' && (type as string) !== 'pending') throw new InvalidArgumentError('type', "must be 'processed' or 'pending'");
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) throw new InvalidArgumentError('start/end', 'must be integers');
  const record = await recordOfJobId(queue, parentId);
  if (record === undefined) return { items: [], jobs: [], total: 0 };
  const all = await dependencies(queue, record.id, record.payload);
  const items: DependencyItem[] = type === 'processed' ? Object.entries(all.processed).map(([id, v]) => ({ id, v })) : all.unprocessed.map((id) => ({ id }));
  const from = start < 0 ? Math.max(items.length + start, 0) : start;
  const to = end < 0 ? items.length + end : Math.min(end, items.length - 1);
  const page = items.slice(from, to + 1);
  const local = `${qualifiedNameOf(queue.name)}:`;
  const jobs: Record<string, unknown>[] = [];
  for (const { id } of page) {
    if (!id.startsWith(local)) continue;
    const child = await recordOfJobId(queue, id.slice(local.length));
    if (child === undefined) continue;
    const job = Job.fromRecord(queue, child);
    jobs.push({ ...job.toJSON(), delay: job.delay, priority: job.priority, parent: job.parent, parentKey: job.parentKey });
  }
  return { items: page, jobs, total: items.length };
}
