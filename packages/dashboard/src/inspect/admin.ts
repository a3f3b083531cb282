import { Connection, GoneError, InvalidArgumentError, isConnectionLike, queueKeys, reads, StateError, type ConnectOptions } from '@echo/protocol/extend';
import { Queue, rawCodec, type ListOptions, type ListState, type MinuteCount, type WorkerInfo } from '@echo/queue';
import { bulkAct, checkBulk, type BulkResult } from './bulk.js';
import { minuteCounts, redriveDeadLetters, schedulerViews, streamDeadLetters, type DeadLetterView, type SchedulerView } from './operations.js';
import { searchJobs, type SearchResult } from './search.js';
import { discoverNamespaces, namespaceEntries, NamespaceWriter, type NamespaceEntries, type NamespaceRef } from './namespaces.js';
import { discoverCacheTables, discoverQueues, discoverStreams, type CacheTableRef, type StreamRef } from './discover.js';
import { streamInfo, type StreamInfo } from './streams.js';
import { jobView, listedView, type JobDetail, type JobListView, type QueueRates, type QueueSummary } from './views.js';
import { workerConnections } from './workers.js';

/** What {@link Admin.retryAllDead} did. */
export interface RetryAllResult {
  /** Dead jobs brought back to pending. */
  readonly retried: number;
  /** Dead jobs that moved or vanished before their turn (another operator, a remove). */
  readonly skipped: number;
}

const RETRY_PAGE = 200;

/** Resolves after `ms`, or as soon as `signal` aborts, clearing its timer either way. */
function windowOf(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * The reads and writes an operator needs across every queue, stream and cache table on one server
 * or cluster. Reads are plain commands and read scripts; every write is a queue transition
 * (`reprocess`, `remove`, `pause`, `resume`, `drain`) through `@echo/queue`. Queues are opened with
 * the raw codec, so payloads are shown as stored, whatever codec their producers use.
 *
 * @example
 * const admin = await Admin.connect(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
 * for (const name of await admin.queues()) console.log(await admin.summary(name));
 * await admin.close();
 */
export class Admin {
  /** The connection every read and write goes through. */
  readonly connection: Connection;
  readonly #owns: boolean;
  readonly #queues = new Map<string, Queue<string>>();
  readonly #namespaces: NamespaceWriter;

  private constructor(connection: Connection, owns: boolean) {
    this.connection = connection;
    this.#owns = owns;
    this.#namespaces = new NamespaceWriter(connection);
  }

  /** An admin over an open connection, which {@link close} leaves open. */
  static over(connection: Connection): Admin {
    if (!isConnectionLike(connection)) throw new InvalidArgumentError('Admin.over connection', 'must be an open Connection; to connect from a URL or options, use Admin.connect');
    return new Admin(connection, false);
  }

  /**
   * Connects (a URL or full options); {@link close} closes that connection.
   * @throws ConnectError, AuthError, VersionFenceError
   */
  static async connect(options: ConnectOptions | string): Promise<Admin> {
    return new Admin(await Connection.connect(options), true);
  }

  /** A raw-codec handle on queue `name`, opened once. @throws InvalidNameError */
  async queue(name: string): Promise<Queue<string>> {
    let queue = this.#queues.get(name);
    if (queue === undefined) {
      queue = await Queue.open(name, { connection: this.connection, codec: rawCodec });
      this.#queues.set(name, queue);
    }
    return queue;
  }

  // Discovery

  /** The queues on the server (SCAN over every master), sorted by name. */
  queues(): Promise<string[]> {
    return discoverQueues(this.connection);
  }

  /** The stream logs on the server (SCAN over every master), sorted by queue then name. */
  streamRefs(): Promise<StreamRef[]> {
    return discoverStreams(this.connection);
  }

  /**
   * The stream logs with their groups and lag: those named, or every one on the server. A stream
   * dropped since it was found is left out.
   */
  async streams(refs?: readonly StreamRef[]): Promise<StreamInfo[]> {
    const infos = await Promise.all(
      (refs ?? (await this.streamRefs())).map((ref) =>
        streamInfo(this.connection, ref.queue, ref.name).catch((error: unknown) => {
          if (error instanceof GoneError) return undefined;
          throw error;
        }),
      ),
    );
    return infos.filter((info) => info !== undefined);
  }

  /** One stream with its groups. @throws GoneError when it does not exist; InvalidNameError. */
  stream(queue: string, name: string): Promise<StreamInfo> {
    return streamInfo(this.connection, queue, name);
  }

  /** The cache tables with L2 rows on the server. Hit ratios live in each process's `Cache`. */
  cacheTables(): Promise<CacheTableRef[]> {
    return discoverCacheTables(this.connection);
  }

  /** The keyed cache namespaces with entries or tags on the server (SCAN over every master). */
  namespaces(): Promise<NamespaceRef[]> {
    return discoverNamespaces(this.connection);
  }

  /** One page of a keyed namespace's entries (by key, with their TTL) and its tags. @throws InvalidNameError */
  namespaceEntries(name: string, page: { offset?: number; limit?: number } = {}): Promise<NamespaceEntries> {
    return namespaceEntries(this.connection, name, page);
  }

  /** Deletes one entry of a keyed namespace, announced on its coherence log so every L1 drops it. */
  deleteCacheKey(name: string, key: string): Promise<boolean> {
    return this.#namespaces.deleteKey(name, key);
  }

  /** Deletes every entry of a keyed namespace written with `tag`; answers how many L2 held. */
  deleteCacheTag(name: string, tag: string): Promise<number> {
    return this.#namespaces.deleteTag(name, tag);
  }

  /** Worker connections on the server, all queues together; `undefined` without `CLIENT LIST`. */
  workers(): Promise<number | undefined> {
    return workerConnections(this.connection);
  }

  /** The live workers of one queue, from its registry (`queue.getWorkers()`). */
  async queueWorkers(name: string): Promise<WorkerInfo[]> {
    return (await this.queue(name)).getWorkers();
  }

  // Queue reads

  /** Counters, pause state and ceiling of one queue; a queue with no keys reads as all zero. */
  async summary(name: string): Promise<QueueSummary> {
    const queue = await this.queue(name);
    const [counts, meta] = await Promise.all([
      queue.counts('pending', 'lanes', 'active', 'scheduled', 'dead', 'awaiting_children', 'completed', 'failed'),
      reads.sendRead(this.connection, reads.queue.meta({ keys: queueKeys(name) })),
    ]);
    const { paused, concurrency } = meta;
    const { awaiting_children: awaitingChildren, ...rest } = counts;
    return { name, paused, concurrency, counts: { ...rest, awaitingChildren } };
  }

  /** Summaries of the queues named, or of every queue on the server. */
  async summaries(names?: readonly string[]): Promise<QueueSummary[]> {
    return Promise.all((names ?? (await this.queues())).map((name) => this.summary(name)));
  }

  /**
   * Completions and failures per second: the metrics counters read twice, `windowMs` apart. The
   * counters only grow, so the difference is what finished in the window.
   *
   * @param options.signal - ends the window early (Ctrl-C in `emq watch`): the rates are then over
   *   the time that passed, reported as `windowMs`, and no timer is left behind.
   */
  async rates(name: string, windowMs = 1000, options: { readonly signal?: AbortSignal } = {}): Promise<QueueRates> {
    const queue = await this.queue(name);
    const first = await queue.counts('completed', 'failed');
    const t0 = performance.now();
    await windowOf(windowMs, options.signal);
    const second = await queue.counts('completed', 'failed');
    const elapsed = performance.now() - t0;
    const perSec = (delta: number): number => Math.round((delta * 1000 * 10) / elapsed) / 10;
    return { name, completedPerSec: perSec(second.completed - first.completed), failedPerSec: perSec(second.failed - first.failed), windowMs: Math.round(elapsed) };
  }

  /** One page of a state's jobs, oldest (or soonest due) first. @throws InvalidArgumentError */
  async jobs(name: string, state: ListState, options: ListOptions = {}): Promise<JobListView> {
    const page = await (await this.queue(name)).listJobs(state, options);
    return { queue: name, state, total: page.total, offset: page.offset, jobs: page.jobs.map((job) => listedView(state, job)) };
  }

  /**
   * One job with its logs, its attempt history and the scheduler that fired it.
   * @throws GoneError when it does not exist; MalformedIdError.
   */
  async job(name: string, id: string): Promise<JobDetail> {
    const queue = await this.queue(name);
    const [position, record] = await Promise.all([queue.getState(id), queue.getJob(id)]);
    if (record === undefined || position === 'absent') throw new GoneError(`job ${id} not found in queue ${name}`);
    const gone = <V>(fallback: V) => (error: unknown): V => {
      if (error instanceof GoneError) return fallback;
      throw error;
    };
    const [logs, history, schedulers] = await Promise.all([
      queue.getLogs(id).catch(gone<string[]>([])),
      queue.getAttempts(id).catch(gone([])),
      record.scheduler === undefined ? [] : schedulerViews(queue),
    ]);
    const s = schedulers.find((one) => one.id === record.scheduler);
    const schedulerInfo = s === undefined ? null : { id: s.id, next: s.next, lastRunAt: s.lastRunAt, pattern: s.pattern };
    return { ...jobView(id, position, record, record.rawPayload, null), logs, history, schedulerInfo };
  }

  /** Jobs of one queue found by id, business key or name (see `searchJobs`). */
  async search(name: string, query: string): Promise<SearchResult> {
    return searchJobs(await this.queue(name), query);
  }

  /** A queue's schedulers: pattern, next and last run, runs so far. */
  async schedulers(name: string): Promise<SchedulerView[]> {
    return schedulerViews(await this.queue(name));
  }

  /** A queue's completions and failed attempts per minute, the last `minutes` (kept when the queue's `minutes` setting is on). */
  async minutes(name: string, minutes = 60): Promise<MinuteCount[]> {
    return minuteCounts(await this.queue(name), minutes);
  }

  /** A stream's dead letters, oldest first (one page). @throws InvalidNameError */
  deadLetters(queue: string, stream: string, range: { after?: string; count?: number } = {}): Promise<DeadLetterView[]> {
    return streamDeadLetters(this.connection, queue, stream, range);
  }

  // Writes: each one transition.

  /** Brings a dead job back to pending (`reprocess`). @throws GoneError; StateError("not dead"). */
  async retry(name: string, id: string): Promise<void> {
    await (await this.queue(name)).reprocess(id);
  }

  /** Brings every dead job back, a page at a time, one `reprocess` each. */
  async retryAllDead(name: string): Promise<RetryAllResult> {
    const queue = await this.queue(name);
    let retried = 0;
    let skipped = 0;
    const seen = new Set<string>();
    for (;;) {
      const page = await queue.listJobs('dead', { offset: 0, limit: RETRY_PAGE });
      const fresh = page.jobs.filter((job) => !seen.has(job.id));
      // A job that stays dead after a refused reprocess would come back on every page.
      if (fresh.length === 0) return { retried, skipped };
      const outcomes = await Promise.all(
        fresh.map(async (job) => {
          seen.add(job.id);
          try {
            await queue.reprocess(job.id);
            return true;
          } catch (error) {
            if (error instanceof GoneError || error instanceof StateError) return false;
            throw error;
          }
        }),
      );
      const done = outcomes.filter(Boolean).length;
      retried += done;
      skipped += outcomes.length - done;
    }
  }

  /**
   * Retries, removes or promotes each selected job, one transition each; a job that moved meanwhile
   * is refused with its typed error and the others go on.
   * @throws InvalidArgumentError for an unknown action or a bad id list (nothing is written).
   */
  async bulk(name: string, action: unknown, ids: unknown): Promise<BulkResult> {
    const checked = checkBulk(action, ids);
    return bulkAct(await this.queue(name), checked.action, checked.ids);
  }

  /** Removes a scheduler (`repeat_cancel`): it fires no more; jobs it enqueued stay. Answers whether it existed. */
  async removeScheduler(name: string, id: string): Promise<boolean> {
    return (await this.queue(name)).removeScheduler(id);
  }

  /** Puts a stream's dead letters back for their group (`stream_redrive`): the entries named, or all. */
  redrive(queue: string, stream: string, ids: readonly string[] | 'all'): Promise<{ redriven: number; left: number }> {
    return redriveDeadLetters(this.connection, queue, stream, ids);
  }

  /** Deletes a job (`remove_job`). @throws GoneError; LockedError while a worker holds it. */
  async remove(name: string, id: string): Promise<void> {
    await (await this.queue(name)).remove(id);
  }

  /** Stops claims on a queue (`pause_queue`). */
  async pause(name: string): Promise<void> {
    await (await this.queue(name)).pause();
  }

  /** Lets claims run again (`resume_queue`). */
  async resume(name: string): Promise<void> {
    await (await this.queue(name)).resume();
  }

  /** Deletes waiting jobs, and scheduled ones when asked (`drain`); answers how many. */
  async drain(name: string, options: { includeScheduled?: boolean } = {}): Promise<number> {
    return (await this.queue(name)).drain(options);
  }

  /** Closes the connection when this admin opened it. */
  async close(): Promise<void> {
    await this.#namespaces.close();
    if (this.#owns) await this.connection.close();
  }
}
