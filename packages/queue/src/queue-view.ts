import type { AttemptRecord, Connection, JobId, ListenOptions, QueueKeys } from '@echo/protocol/queue';
import type { Codec } from './core/codec.js';
import type { QueueContext } from './core/context.js';
import type { JobPosition, JobRecord } from './core/job.js';
import { QueueEvents } from './reads/events.js';
import { journalReader, type EventsJournal, type JournalOptions } from './reads/journal.js';
import type { MinuteCount } from './reads/history.js';
import * as controls from './admin/controls.js';
import * as flows from './flows/flows.js';
import * as finished from './reads/finished.js';
import type { Finished } from './reads/finished.js';
import * as history from './reads/history.js';
import * as listing from './reads/listing.js';
import type { JobPage, ListOptions, ListState } from './reads/listing.js';
import * as reads from './reads/reads.js';
import type { CountName } from './reads/reads.js';
import * as workers from './reads/workers.js';
import type { WorkerInfo } from './reads/workers.js';

let bind: <T>(view: QueueView<T>, ctx: QueueContext<T>) => void;

/** Hands a view the context it reads through: `Queue`'s constructor calls it once. */
export function bindView<T>(view: QueueView<T>, ctx: QueueContext<T>): void {
  bind(view, ctx);
}

/**
 * The read side of one queue: counts, job rows, listings, results and verdicts, workers, history,
 * and the event listeners, none of which changes the queue's state. {@link Queue} extends it with
 * every verb that does; an app holds a `Queue`.
 */
export class QueueView<T = unknown> {
  #ctx!: QueueContext<T>;

  static {
    bind = (view, ctx) => {
      view.#ctx = ctx;
    };
  }

  protected constructor() {
    // Not public, and taking no context, so the context stays out of the public types: `Queue` binds it.
  }

  /** The queue's name, as given to {@link Queue.open}. */
  get name(): string {
    return this.#ctx.name;
  }

  /** Every key of the queue (`emq:{<name>}:…`), for reading its sets and rows directly. */
  get keys(): QueueKeys {
    return this.#ctx.keys;
  }

  /** The connection this queue speaks through. */
  get connection(): Connection {
    return this.#ctx.conn;
  }

  /** The payload codec. */
  get codec(): Codec<T> {
    return this.#ctx.codec;
  }

  /** True while the queue-wide pause stands. */
  isPaused(): Promise<boolean> {
    return reads.isPaused(this.#ctx);
  }

  /** A job's log lines in order. */
  getLogs(id: string): Promise<string[]> {
    return controls.getLogs(this.#ctx, id);
  }

  /** Pending depth per lane (named as in {@link enqueueInLane}), in request order. */
  laneDepths(names: readonly string[]): Promise<number[]> {
    return reads.laneDepths(this.#ctx, names);
  }

  /**
   * Every set size and metrics counter, read atomically, in this order: `pending`, `lanes` (jobs
   * pending in every lane: only a lane claim serves them, so a default `Worker` leaves them alone
   * until it is started with `source: 'lanes'`), `active`, `scheduled`, `awaiting_children`, `dead`,
   * `expired`, `retained` (completed rows kept), and the counters `completed` and `failed` (every
   * completion and failure so far).
   */
  counts(): Promise<Record<CountName, number>>;

  /**
   * The named set sizes and metrics counters (the names `counts()` answers), read atomically, in
   * request order.
   * @throws UnknownStateError for any other name, before anything is sent.
   */
  counts<N extends CountName>(...names: N[]): Promise<Record<N, number>>;

  counts<N extends CountName>(...names: N[]): Promise<Record<N, number>> {
    return reads.counts(this.#ctx, names);
  }

  /** Where a job sits right now. */
  getState(id: string): Promise<JobPosition> {
    return reads.getState(this.#ctx, id);
  }

  /** A job's row, decoded, or `undefined`. */
  getJob(id: string): Promise<JobRecord<T> | undefined> {
    return reads.getJob(this.#ctx, id);
  }

  /** A metrics counter. */
  getMetrics(which: 'completed' | 'failed'): Promise<{ count: number; dataPoints: number }> {
    return reads.getMetrics(this.#ctx, which);
  }

  /** The newest `n` pending ids, newest first. */
  browse(n: number): Promise<JobId[]> {
    return reads.browse(this.#ctx, n);
  }

  /** One page of the jobs in a state's set, with their rows, in the set's order. */
  listJobs(state: ListState, options?: ListOptions): Promise<JobPage<T>> {
    return listing.listJobs(this.#ctx, state, options);
  }

  /**
   * The job admitted under a business key (or dedup id), with its row: live, or finished and
   * retained [TS]. `undefined` when the key is free or its job's row is gone.
   * @throws InvalidNameError for a key outside the name grammar.
   */
  getJobByKey(key: string): Promise<JobRecord<T> | undefined> {
    return finished.getJobByKey(this.#ctx, key);
  }

  /**
   * A retained completed job's result [TS], decoded: the value the handler returned (a string stays
   * a string, an object comes back as the object), as `waitUntilFinished`, `getJob` and the
   * `completed` event (`resultValue(event)`) give it. `undefined` while it runs, when it gave none,
   * or when it is not retained.
   */
  getResult(id: string): Promise<unknown> {
    return finished.getResult(this.#ctx, id);
  }

  /**
   * Waits for a job's verdict [TS] and cannot miss one that came before the call: it subscribes,
   * then reads the row and, when the row is gone (completed jobs are not kept by default), the
   * queue's recent completions (about the last 1000), then listens. So it works right after
   * `enqueue`, however fast the job ran. Resolves with the decoded result; rejects with
   * `JobFailedError` (carrying the failure) when it died, `JobNotFoundError` when the job is gone
   * and no verdict of it is kept, `WaitTimeoutError` after `timeoutMs` (default 30 s). Pass an open
   * `QueueEvents` to share its connection; otherwise one is opened for the wait.
   */
  waitUntilFinished(id: string, options?: { readonly timeoutMs?: number; readonly events?: QueueEvents }): Promise<Finished> {
    return finished.waitUntilFinished(this.#ctx, id, options);
  }

  /**
   * The live workers of this queue [TS], soonest to lapse first, at most `limit` (default 1000):
   * name, host, pid, concurrency, jobs held and last beat of each. A worker beats on its lease
   * heartbeat (`extendEveryMs`) and drops out three missed beats (at least 1 s) after its last one;
   * `close()` removes it at once.
   */
  getWorkers(limit?: number): Promise<WorkerInfo[]> {
    return workers.getWorkers(this.#ctx, limit);
  }

  /**
   * A job's attempt history [TS], oldest first: when each attempt started and ended, how (completed,
   * retried, failed, stalled, delayed), how long it took and its error. Recorded while
   * `setEvents({ history: n })` is on (the last `n` attempts per job), deleted with the job.
   * @throws GoneError when the job is gone; MalformedIdError.
   */
  getAttempts(id: string): Promise<AttemptRecord[]> {
    return history.getAttempts(this.#ctx, id);
  }

  /**
   * Completions and failed attempts per minute over the last `minutes` (default 60) [TS], oldest
   * first, counted while `setEvents({ minutes: m })` is on (kept `m` minutes on the server).
   */
  getMinutes(minutes?: number): Promise<MinuteCount[]> {
    return history.getMinutes(this.#ctx, minutes);
  }

  /** The job id parked under an idempotency key. */
  getDedupJobId(dedupId: string): Promise<JobId | undefined> {
    return reads.getDedupJobId(this.#ctx, dedupId);
  }

  /** True when `meta.concurrency` is set and that many jobs are active; consult before claiming. */
  isMaxed(): Promise<boolean> {
    return reads.isMaxed(this.#ctx);
  }

  /** ms the rate window still refuses work; 0 when not limited. */
  getRateLimitTtl(max?: number): Promise<number> {
    return reads.getRateLimitTtl(this.#ctx, max);
  }

  /** Results left by a parent's completed children, child id → result. */
  childrenValues(parentId: string): Promise<Record<string, string>> {
    return flows.childrenValues(this.#ctx, parentId);
  }

  /** Failures of children whose death the parent ignored, child id → error. */
  ignoredFailures(parentId: string): Promise<Record<string, string>> {
    return flows.ignoredFailures(this.#ctx, parentId);
  }

  /** How many of a parent's children are still open. */
  dependencies(parentId: string): Promise<number> {
    return flows.dependencies(this.#ctx, parentId);
  }

  /**
   * Opens a listener for this queue's lifecycle events on a connection of its own. At most once:
   * for events that must survive a disconnect, read the {@link journal}. `connectionName` names that
   * connection (`CLIENT SETNAME`), so the listeners of a queue can be found in `CLIENT LIST`.
   */
  events(options: Pick<ListenOptions, 'connectionName'> = {}): Promise<QueueEvents> {
    return QueueEvents.open(this.#ctx.conn, this.name, options);
  }

  /**
   * A reader of the queue's events journal (see {@link setEvents}): every journaled event from
   * `from`, then new ones as they come, on a connection of its own. The durable twin of
   * {@link events}: resume a reader that was away with `{ from: { after: lastId } }`.
   * @throws InvalidArgumentError for a bad option.
   */
  journal(options?: JournalOptions): EventsJournal {
    return journalReader(this.#ctx, options);
  }
}
