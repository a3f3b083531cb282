import type { Queue as EchoQueue } from '@echo/queue';
import type { Envelope } from '../envelope.js';

/** Jobs this process gave children while they could run (a step job's fan-out), by Echo id. */
const adopted = new Set<string>();

/** The most remembered at once: a job is forgotten when it settles, so this only bounds a leak. */
const REMEMBERED = 10_000;

/** Notes that job `echoId` was given children through the `parent` option while it may be running. */
export function noteChildrenAdded(echoId: string): void {
  if (adopted.size >= REMEMBERED) {
    const oldest = adopted.values().next();
    if (oldest.done !== true) adopted.delete(oldest.value);
  }
  adopted.add(echoId);
}

/**
 * BullMQ refuses to complete a job with open children (`Job <id> has pending dependencies.
 * moveToFinished`): it fails instead. Only a job this process gave children at run time is read
 * (one GET), so a plain job's completion pays nothing.
 */
export async function refusePendingChildren(queue: EchoQueue<Envelope>, echoId: string, jobId: string): Promise<void> {
  if (!adopted.delete(echoId)) return;
  if ((await queue.dependencies(echoId)) > 0) throw new Error(`Job ${jobId} has pending dependencies. moveToFinished`);
}
