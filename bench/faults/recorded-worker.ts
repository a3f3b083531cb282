/**
 * A queue worker whose every handler start, settlement (accepted or refused) and error is recorded
 * as a history operation, for the fault run's checker. Used in the bench's own process and in the
 * worker child processes that the schedule SIGKILLs.
 */
import { GoneError, OutageReport, StaleError } from '@echo/protocol';
import { fixed, Worker, type ClaimedJob, type Queue } from '@echo/queue';
import { sleep, type Operation } from '@echo/testkit';

export interface FaultJob {
  readonly n: number;
  /** Fails its first attempt, to exercise retries. */
  readonly flaky: boolean;
}

/** Worker settings shared by every worker of the run. */
export const LEASE_MS = 3_000;

/** What a recorded worker tells its owner besides the operations. */
export interface WorkerNotes {
  /** Errors reported through `onError`, by class name (outage reports counted apart). */
  readonly errors: Map<string, number>;
  /** The first message seen of each error kind. */
  readonly samples: Map<string, string>;
  outages: number;
}

export async function startRecordedWorker(queue: Queue<FaultJob>, name: string, record: (op: Operation) => void, notes: WorkerNotes): Promise<Worker> {
  const finishedAt = new Map<string, number>();
  const keyOf = (job: ClaimedJob<unknown>): string => `${job.id}:${job.attempts}`;
  const ended = (job: ClaimedJob<unknown>): number => {
    const key = keyOf(job);
    const at = finishedAt.get(key) ?? Date.now();
    finishedAt.delete(key);
    return at;
  };
  const worker = (await Worker.start(
    queue,
    async (job, ctx) => {
      record({ type: 'start', job: job.id, token: job.attempts, at: Date.now(), leaseMs: LEASE_MS, leaseUntil: ctx.leaseUntil(), worker: name });
      try {
        await sleep(2 + (job.payload.n % 8));
        if (job.payload.flaky && job.attempts === 1) throw new Error('first attempt fails');
      } finally {
        const at = Date.now();
        finishedAt.set(keyOf(job), at);
        // Sent before the settlement: a SIGKILL after the server took it loses only the settlement's report.
        record({ type: 'handler-end', job: job.id, token: job.attempts, at, worker: name });
      }
    },
    {
      concurrency: 8,
      leaseMs: LEASE_MS,
      maxAttempts: 3,
      backoff: fixed(50),
      blockMs: 300,
      maintenanceMs: 200,
      onError: (error, job) => {
        if (error instanceof OutageReport) {
          notes.outages++;
          return;
        }
        if (job && (error instanceof StaleError || error instanceof GoneError)) {
          record({ type: 'settle', job: job.id, token: job.attempts, outcome: 'completed', accepted: false, sentAt: ended(job), at: Date.now(), worker: name });
          return;
        }
        const kind = error instanceof Error ? error.constructor.name : typeof error;
        notes.errors.set(kind, (notes.errors.get(kind) ?? 0) + 1);
        if (!notes.samples.has(kind)) notes.samples.set(kind, error instanceof Error ? (error.stack ?? error.message) : String(error));
      },
    },
  )) as Worker;
  worker.on('completed', ({ job }) => {
    record({ type: 'settle', job: job.id, token: job.attempts, outcome: 'completed', accepted: true, sentAt: ended(job), at: Date.now(), worker: name });
  });
  worker.on('failed', ({ job, outcome }) => {
    record({ type: 'settle', job: job.id, token: job.attempts, outcome: outcome === 'dead' ? 'dead' : 'retry', accepted: true, sentAt: ended(job), at: Date.now(), worker: name });
  });
  return worker;
}
