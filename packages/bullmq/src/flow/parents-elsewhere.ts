import { StateError } from '@echo/protocol/queue';
import { Queue as EchoQueue, type JobRecord } from '@echo/queue';
import type { Envelope } from '../envelope.js';

/**
 * Open children of parents in other queues, by parent: Echo's scripts that delete a waiting job
 * (`remove`, `drain`) count down a parent of the job's own queue in the same step, but cannot reach
 * another queue's slot. BullMQ's `clean` and `drain` do reach it: the parent stops waiting for the
 * deleted child and, waiting on nothing more, moves to wait. This takes that count back afterwards.
 */
export class ParentsElsewhere {
  readonly #queue: EchoQueue<Envelope>;
  /** `<queue>\n<parent id>` → how many of its open children were deleted here. */
  readonly #counts = new Map<string, number>();

  constructor(queue: EchoQueue<Envelope>) {
    this.#queue = queue;
  }

  /** Notes that the open job `record` was deleted (a no-op unless its parent is in another queue). */
  note(record: JobRecord<Envelope>): void {
    const link = record.parent;
    if (link === undefined || link.queue === this.#queue.name) return;
    const at = `${link.queue}\n${link.id}`;
    this.#counts.set(at, (this.#counts.get(at) ?? 0) + 1);
  }

  /** Notes every open job of `state` with a parent elsewhere, before a bulk delete of that set. */
  async noteAll(state: 'pending' | 'scheduled'): Promise<void> {
    const page = 1000;
    for (let offset = 0; ; offset += page) {
      const { jobs } = await this.#queue.listJobs(state, { offset, limit: page });
      for (const { record } of jobs) if (record) this.note(record);
      if (jobs.length < page) return;
    }
  }

  /** Counts each noted parent down by its deleted children; one that waits on nothing more runs. */
  async forget(): Promise<void> {
    for (const [at, count] of this.#counts) {
      const [queueName = '', parentId = ''] = at.split('\n');
      const parentQueue = await EchoQueue.open<Envelope>(queueName, { connection: this.#queue.connection });
      await parentQueue.forgetChildren(parentId, count).catch((error: unknown) => {
        // A parent that is gone or finished waits on nothing: there is no count to take back.
        if (!(error instanceof StateError)) throw error;
      });
    }
    this.#counts.clear();
  }
}

/**
 * The parents elsewhere of the jobs `queue.drain` is about to delete (the waiting ones, and the
 * delayed ones with `delayed`), to count down once it has. A job claimed between this read and the
 * drain would be counted too; its parent then runs early rather than waiting for ever.
 */
export async function parentsOfDrained(queue: EchoQueue<Envelope>, delayed: boolean): Promise<ParentsElsewhere> {
  const parents = new ParentsElsewhere(queue);
  await parents.noteAll('pending');
  if (delayed) await parents.noteAll('scheduled');
  return parents;
}
