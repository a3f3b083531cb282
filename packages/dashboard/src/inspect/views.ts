import type { AttemptRecord } from '@echo/protocol/extend';
import type { JobPosition, JobRecord, ListedJob, ListState } from '@echo/queue';

/** The six counters of a queue (the four sets and the two metrics counters). */
export interface QueueCounts {
  readonly pending: number;
  /**
   * Jobs pending in the queue's lanes, apart from `pending`: only a lane claim serves them, so a
   * default `Worker` leaves them alone until it is started with `source: 'lanes'`.
   */
  readonly lanes: number;
  readonly active: number;
  readonly scheduled: number;
  readonly dead: number;
  /** Flow parents and step jobs held until their children are done. */
  readonly awaitingChildren: number;
  /** Jobs completed since the queue was created (the `metrics:completed` counter). */
  readonly completed: number;
  /** Jobs dead-lettered since the queue was created (the `metrics:failed` counter). */
  readonly failed: number;
}

/** What an operator sees of one queue. */
export interface QueueSummary {
  readonly name: string;
  readonly paused: boolean;
  /** `meta.concurrency`, the queue-wide in-flight ceiling; 0 when unset. */
  readonly concurrency: number;
  readonly counts: QueueCounts;
}

/** Completions and failures per second over a sampling window. */
export interface QueueRates {
  readonly name: string;
  readonly completedPerSec: number;
  readonly failedPerSec: number;
  /** The window the two reads spanned, ms. */
  readonly windowMs: number;
}

/** A job as JSON carries it: the payload as stored text, absent fields as `null`. */
export interface JobView {
  readonly id: string;
  /** The job's name, when it was enqueued with one. */
  readonly name: string | null;
  /** The business key (or dedup id) it was admitted under. */
  readonly key: string | null;
  /** The scheduler whose occurrence it is, when one fired it. */
  readonly scheduler: string | null;
  /** When it finished (a retained completed or a dead job), ms since the epoch; `null` otherwise. */
  readonly finishedAt: number | null;
  /** The set the listing read it from, or where `state_lookup` places it. */
  readonly position: ListState | JobPosition;
  /** The row's own `state` field. */
  readonly state: string | null;
  /** Run-at (scheduled) or lease deadline (active), ms since the epoch; `null` otherwise. */
  readonly at: number | null;
  readonly attempts: number;
  readonly payload: string | null;
  readonly lastError: string | null;
  readonly progress: string | null;
  readonly stalled: number;
  /** The lane's group id on the wire, for lane jobs. */
  readonly group: string | null;
  /** The lane as its producer named it (`tenantA`), or the group id for a lane named by id. */
  readonly lane: string | null;
  /**
   * A retained completed job's result, decoded as the queue reads it (`getResult`): the value the
   * handler returned; `null` when there is none.
   */
  readonly result: unknown;
  readonly parent: { readonly queue: string; readonly id: string; readonly policy: string } | null;
}

/** The scheduler a job came from, as the job's page shows it. */
export interface JobScheduler {
  readonly id: string;
  /** Its next run, ms since the epoch. */
  readonly next: number;
  /** Its last run, ms since the epoch; `null` before the first. */
  readonly lastRunAt: number | null;
  /** Its every-ms cadence or cron pattern, as text. */
  readonly pattern: string;
}

/** A job with its log lines, its attempt history and the scheduler that fired it. */
export interface JobDetail extends JobView {
  readonly logs: string[];
  /** Each attempt, oldest first (recorded while the queue's `history` setting is on). */
  readonly history: AttemptRecord[];
  /** The scheduler that fired it, while that scheduler exists. */
  readonly schedulerInfo: JobScheduler | null;
}

/** A page of job views. */
export interface JobListView {
  readonly queue: string;
  readonly state: ListState;
  readonly total: number;
  readonly offset: number;
  readonly jobs: JobView[];
}

/** Builds a {@link JobView} from a row (or its absence) and where it was found. */
export function jobView(id: string, position: ListState | JobPosition, record: JobRecord<string> | undefined, rawPayload: string | undefined, at: number | null): JobView {
  return {
    id,
    name: record?.name ?? null,
    key: record?.key ?? null,
    scheduler: record?.scheduler ?? null,
    finishedAt: record?.finishedAt ?? null,
    position,
    state: record?.state ?? null,
    at,
    attempts: record?.attempts ?? 0,
    payload: record?.rawPayload ?? rawPayload ?? null,
    lastError: record?.lastError ?? null,
    progress: record?.progress ?? null,
    stalled: record?.stalled ?? 0,
    group: record?.group ?? null,
    lane: record?.lane ?? null,
    result: record?.result ?? null,
    parent: record?.parent === undefined ? null : { queue: record.parent.queue, id: record.parent.id, policy: record.parent.policy },
  };
}

/** The view of one listed job; the score is a time only for the timed sets. */
export function listedView(state: ListState, job: ListedJob<string>): JobView {
  const at = state === 'scheduled' || state === 'active' ? job.score : null;
  return jobView(job.id, state, job.record, job.rawPayload, at);
}
