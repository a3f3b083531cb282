import { queueKeys } from '@echo/protocol/queue';
import type { Queue as EchoQueue } from '@echo/queue';

/**
 * The drop-in's own counter of BullMQ's job ids for one queue. It lives outside Echo's keyspace
 * (`emq:`) because it is BullMQ's numbering, not Echo's; the hash tag keeps it in the queue's slot
 * on a cluster.
 */
export function idCounterKey(echoName: string): string {
  return `bullmq-echo:{${echoName}}:id`;
}

/**
 * The next `count` ids of the queue's counter, as BullMQ numbers jobs added without a `jobId`:
 * `'1'`, `'2'`, … per queue. One INCRBY for a whole bulk.
 */
export async function nextJobIds(queue: EchoQueue, count: number): Promise<string[]> {
  if (count === 0) return [];
  const last = Number(await queue.connection.command('INCRBY', idCounterKey(queue.name), count));
  return Array.from({ length: count }, (_, i) => String(last - count + 1 + i));
}

/** Deletes the queue's id counter (obliterate starts BullMQ's numbering again). */
export async function resetJobIds(queue: EchoQueue): Promise<void> {
  await queue.connection.command('DEL', idCounterKey(queue.name));
}

/**
 * BullMQ keeps completed jobs unless told otherwise (`removeOnComplete` defaults to false); Echo's
 * queue deletes them at completion unless its retention says otherwise. This writes "keep every
 * completed job" only when the queue has no completed-retention yet: HSETNX is one atomic command,
 * so a retention another process set (a worker's `removeOnComplete`) is never overwritten. The value
 * is the one the `retention_set` script writes for an unbounded count.
 */
export async function keepCompletedByDefault(queue: EchoQueue): Promise<void> {
  await queue.connection.command('HSETNX', queueKeys(queue.name).meta, 'keep_completed_count', String(Number.MAX_SAFE_INTEGER));
}
