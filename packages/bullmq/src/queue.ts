import { EchoError, EmqError, InvalidArgumentError, strictOptions } from '@echo/protocol/queue';
import type { Queue as EchoQueue, KeepBound } from '@echo/queue';
import { makeEnvelope, type Envelope } from './envelope.js';
import { keepCompletedByDefault, nextJobIds, resetJobIds } from './defaults.js';
import { BullMQInputError, NotSupportedError } from './errors.js';
import { keyOfJobId } from './ids.js';
import { Job, type JobProgress } from './job.js';
import { addChildJob } from './flow/child-job.js';
import type { RemoveOpts } from './flow/remove-tree.js';
import { checkConcurrency } from './queue-extras.js';
import { checkClean, cleanJobs, publishDropInEvent, type CleanType } from './queue/clean.js';
import { checkRetryJobs, retryFinishedBefore } from './queue/retry-jobs.js';
import { deleteMeta, readVersion, writeMeta, type QueueMeta } from './queue/meta.js';
import { open, type QueueOptions } from './queue/options.js';
import { QueueGetters } from './queue-getters.js';
import { checkKeepLogs, checkOptions, checkSize, enqueueOptions, keepBound, withoutEmptyJobId, type JobsOptions, type KeepJobs } from './job-options.js';
import { checkRepeat, type RepeatOptions } from './schedulers/repeat-options.js';
import { delayedSchedulerJobs, removeScheduler, restoreSchedulerJobs, schedulersKey, upsertScheduler } from './schedulers/job-schedulers.js';
import { parentsOfDrained } from './flow/parents-elsewhere.js';
import { JobScheduler } from './schedulers/job-scheduler.js';

const checkObliterateOptions = strictOptions('obliterate options', { known: ['force'], hints: { count: 'Echo obliterates in bounded chunks by itself' } });

/**
 * BullMQ's `Queue` over an Echo queue: add jobs, read them, control the queue. The connection opens
 * in the background (BullMQ's constructor is synchronous); every method waits for it.
 */
export class Queue<DataType = unknown, ResultType = unknown, NameType extends string = string> extends QueueGetters<DataType, ResultType, NameType> {
  /** The options every `add` starts from. */
  readonly defaultJobOptions: JobsOptions;
  /** The options the queue was made with (frameworks read `connection` and `prefix` from here). */
  readonly opts: QueueOptions;
  #keep: { completed?: KeepBound; failed?: KeepBound } = {};
  #keepApplied = '';
  #defaulted: Promise<void> | undefined;
  #jobScheduler: JobScheduler<DataType, ResultType, NameType> | undefined;
  #metaWritten: Promise<void> | undefined;

  constructor(name: string, opts: QueueOptions = {}) {
    super(name, open(name, opts), opts.prefix);
    this.defaultJobOptions = opts.defaultJobOptions ?? {};
    this.opts = opts;
  }

  /**
   * Records the library version and events bound in the queue's meta, once, as BullMQ's Queue does
   * at open: here at this Queue's first write or meta read, so a refused first call writes nothing.
   */
  #recordMeta(queue: EchoQueue<Envelope>): Promise<void> {
    // A failed write (a lost connection) is tried again by the next call rather than kept.
    return (this.#metaWritten ??= this.opts.skipMetasUpdate === true ? Promise.resolve() : writeMeta(queue, this.opts.streams).catch((error: unknown) => {
      this.#metaWritten = undefined;
      throw error;
    }));
  }

  /**
   * `<library>:<version>` recorded in the queue's meta by the last Queue opened on it
   * (`bullmq-echo:<version of @echo/bullmq>`), or null when none recorded one.
   */
  async getVersion(): Promise<string | null> {
    const queue = await this.echo;
    await this.#recordMeta(queue);
    return readVersion(queue);
  }

  /** The queue's global settings (see `QueueGetters.getMeta`), once this Queue's own record is written. */
  override async getMeta(): Promise<QueueMeta> {
    await this.#recordMeta(await this.echo);
    return super.getMeta();
  }

  /** Adds a job; with `repeat`, upserts a job scheduler instead. A known `jobId` returns the existing job. */
  async add(name: NameType, data: DataType, opts: JobsOptions = {}): Promise<Job<DataType, ResultType, NameType>> {
    const merged = withoutEmptyJobId({ ...this.defaultJobOptions, ...opts });
    if (merged.parent !== undefined && merged.deduplication !== undefined) throw new BullMQInputError('parent', 'Deduplication and parent options cannot be used together');
    checkOptions(merged);
    checkSize(name, data, merged);
    const queue = await this.echo;
    if (merged.repeat !== undefined) return this.#addRepeat(name, data, merged);
    await this.#applyKeep(queue, merged);
    if (merged.parent !== undefined) return addChildJob<DataType, ResultType, NameType>(queue, merged.parent, name, data, merged);
    const [id] = counted(merged) ? await nextJobIds(queue, 1) : [merged.jobId];
    const envelope = makeEnvelope(name, data, merged, id);
    const result = await queue.enqueue(envelope, enqueueOptions(merged, id));
    if (result.status === 'duplicate') {
      // BullMQ answers the job that holds the id, with its own data.
      const existing = await queue.getJob(result.existingId);
      return existing ? Job.fromRecord(queue, existing) : new Job(queue, result.existingId, envelope);
    }
    const job = new Job<DataType, ResultType, NameType>(queue, result.id, envelope);
    if (this.listenerCount('waiting') > 0) this.emit('waiting', job);
    return job;
  }

  /** Adds several jobs in one round trip. */
  async addBulk(jobs: readonly { readonly name: NameType; readonly data: DataType; readonly opts?: JobsOptions }[]): Promise<Job<DataType, ResultType, NameType>[]> {
    // A child joins its parent in a step of its own (the parent's count grows with it): one by one.
    if (jobs.some((job) => (job.opts?.parent ?? this.defaultJobOptions.parent) !== undefined)) {
      const added: Job<DataType, ResultType, NameType>[] = [];
      for (const job of jobs) added.push(await this.add(job.name, job.data, job.opts));
      return added;
    }
    const prepared = jobs.map((job) => {
      const merged = withoutEmptyJobId({ ...this.defaultJobOptions, ...job.opts });
      checkOptions(merged);
      checkSize(job.name, job.data, merged);
      if (merged.repeat !== undefined) throw new NotSupportedError('addBulk with repeat', 'add repeating jobs one by one (or through upsertJobScheduler)');
      return { job, merged };
    });
    const queue = await this.echo;
    for (const { merged } of prepared) await this.#applyKeep(queue, merged);
    const ids = await nextJobIds(queue, prepared.filter(({ merged }) => counted(merged)).length);
    const made = prepared.map(({ job, merged }) => {
      const id = counted(merged) ? ids.shift() : merged.jobId;
      return { envelope: makeEnvelope(job.name, job.data, merged, id), merged, id };
    });
    const results = await queue.enqueueMany(made.map(({ envelope, merged, id }) => ({ payload: envelope, ...enqueueOptions(merged, id) })));
    return results.map((result, i) => {
      if (result.status === 'failed') throw result.error;
      const envelope = (made[i] as { envelope: Envelope }).envelope;
      return new Job<DataType, ResultType, NameType>(queue, result.status === 'duplicate' ? result.existingId : result.id, envelope);
    });
  }

  /** Stops every worker of the queue from taking jobs; QueueEvents hears `paused`. */
  async pause(): Promise<void> {
    const queue = await this.echo;
    await this.#recordMeta(queue);
    await queue.pause();
    await publishDropInEvent(queue, 'paused');
  }

  /** Lets workers take jobs again; QueueEvents hears `resumed`. */
  async resume(): Promise<void> {
    const queue = await this.echo;
    await queue.resume();
    await publishDropInEvent(queue, 'resumed');
  }

  /** Removes every waiting job (and the delayed ones with `delayed: true`). */
  async drain(delayed = false): Promise<void> {
    const queue = await this.echo;
    // BullMQ's drain leaves each job scheduler's next job, delayed or waiting as it was.
    const schedulersDelayed = await delayedSchedulerJobs(queue);
    const parents = await parentsOfDrained(queue, delayed);
    await queue.drain({ includeScheduled: delayed });
    await parents.forget();
    await restoreSchedulerJobs(queue, schedulersDelayed);
  }

  /**
   * Removes jobs of `type` (default completed) older than `grace` ms, at most `limit` (0: all);
   * answers their ids, and emits `cleaned` with them (QueueEvents hears `cleaned` with the count).
   */
  async clean(grace: number, limit: number, type: CleanType = 'completed'): Promise<string[]> {
    checkClean(grace, limit, type);
    const removed = await cleanJobs(await this.echo, grace, limit, type);
    // BullMQ names the waiting list 'wait' in the event, whichever spelling the call used.
    this.emit('cleaned', removed, type === 'waiting' ? 'wait' : type);
    return removed;
  }

  /** Deletes the queue and every job in it; `force` also when jobs are running. */
  async obliterate(opts: { readonly force?: boolean } = {}): Promise<void> {
    checkObliterateOptions(opts);
    const queue = await this.echo;
    // As in BullMQ, obliterate pauses the queue first, so no worker takes a job meanwhile.
    await queue.pause();
    await queue.obliterate({ force: opts.force ?? false }).catch((error: unknown) => {
      // BullMQ's text for the refusal; Echo's StateError stays the cause.
      if (error instanceof EmqError && error.detail === 'active jobs present') throw new EchoError('bullmq_active_jobs', 'Cannot obliterate queue with active jobs', { cause: error });
      throw error;
    });
    await resetJobIds(queue);
    await deleteMeta(queue);
    await queue.connection.command('DEL', schedulersKey(queue.name));
  }

  /** Runs delayed jobs now, at most `count` of them (BullMQ's default 1000). */
  async promoteJobs(opts: { readonly count?: number } = {}): Promise<void> {
    const queue = await this.echo;
    const page = await queue.listJobs('scheduled', { limit: Math.min(Math.max(opts.count ?? 1000, 1), 1000) });
    // A job promoted or taken meanwhile is refused by its promote: nothing left to do for it.
    await Promise.all(page.jobs.map(({ id }) => queue.promote(id).catch(() => undefined)));
  }

  /**
   * Removes a job (and its children, as `job.remove`); answers 1 when it was there, 0 otherwise,
   * and emits `removed` with its id. Refused while a worker holds it.
   */
  async remove(jobId: string, opts: RemoveOpts = {}): Promise<number> {
    const job = await this.getJob(jobId);
    if (!job) return 0;
    await job.remove(opts);
    this.emit('removed', jobId);
    return 1;
  }

  /**
   * Creates or updates a job scheduler and makes the job of its next run (waiting when due, else
   * delayed): jobs named `template.name` made every `every` ms or on `pattern`; each next job is made
   * when the one before it starts. Answers the job made, undefined when the scheduler has no run left.
   */
  async upsertJobScheduler(id: string, repeat: RepeatOptions, template: { readonly name?: NameType; readonly data?: DataType; readonly opts?: JobsOptions } = {}): Promise<Job<DataType, ResultType, NameType> | undefined> {
    if (template.opts !== undefined && Object.hasOwn(template.opts, 'debounce')) throw new BullMQInputError('debounce', 'Debounce option has been removed. Use deduplication option instead');
    checkRepeat(repeat);
    if (repeat.key !== undefined) throw new InvalidArgumentError('repeat.key', 'the scheduler id is the first argument here');
    // BullMQ's `prevMillis` (no run computed from before it) is a scheduler input, not a job option.
    const { prevMillis, ...templateOpts } = (template.opts ?? {}) as JobsOptions & { readonly prevMillis?: number };
    if (prevMillis !== undefined && !Number.isSafeInteger(prevMillis)) throw new InvalidArgumentError('template.opts.prevMillis', 'an epoch ms integer');
    const opts = { ...this.defaultJobOptions, ...templateOpts };
    checkOptions(opts);
    if (opts.jobId !== undefined || opts.repeat !== undefined || opts.delay !== undefined) throw new InvalidArgumentError('template.opts', 'a scheduler template takes no jobId, repeat or delay');
    const queue = await this.echo;
    await this.#applyKeep(queue, opts);
    const made = await upsertScheduler(queue, { id, repeat, name: template.name ?? id, data: template.data, opts, strategy: this.opts.settings?.repeatStrategy, ...(prevMillis === undefined ? {} : { prevMillis }) });
    return made === undefined ? undefined : new Job(queue, made.echoId, made.envelope);
  }

  /**
   * BullMQ's `JobScheduler` of this queue, made at first use: the scheduler operations, and an
   * emitter whose `error` events the queue emits as its own.
   */
  get jobScheduler(): Promise<JobScheduler<DataType, ResultType, NameType>> {
    if (this.#jobScheduler === undefined) {
      const scheduler = new JobScheduler<DataType, ResultType, NameType>(this.name, {
        echo: this.echo,
        repeatStrategy: this.opts.settings?.repeatStrategy,
        upsertJobScheduler: (id, repeat, template) => this.upsertJobScheduler(id, repeat, template),
        getJobScheduler: (id) => this.getJobScheduler(id),
        getJobSchedulers: (start, end, asc) => this.getJobSchedulers(start, end, asc),
        getJobSchedulersCount: () => this.getJobSchedulersCount(),
        removeJobScheduler: (id) => this.removeJobScheduler(id),
      });
      scheduler.on('error', (error: unknown) => this.emit('error', error));
      this.#jobScheduler = scheduler;
    }
    return Promise.resolve(this.#jobScheduler);
  }

  /** Removes a job scheduler and its delayed next job (a job already waiting runs once); answers whether it existed. */
  async removeJobScheduler(id: string): Promise<boolean> {
    return removeScheduler(await this.echo, id);
  }

  /** Caps how many jobs run at once across every worker of the queue. */
  async setGlobalConcurrency(concurrency: number): Promise<void> {
    checkConcurrency(concurrency);
    const queue = await this.echo;
    await this.#recordMeta(queue);
    await queue.setGlobalConcurrency(concurrency);
  }

  /** Lifts the global concurrency cap. */
  async removeGlobalConcurrency(): Promise<void> {
    await (await this.echo).setGlobalConcurrency(null);
  }

  /** Limits the whole queue to `max` jobs per `duration` ms. */
  async setGlobalRateLimit(max: number, duration: number): Promise<void> {
    await (await this.echo).setRateLimit({ max, durationMs: duration });
  }

  /** Lifts the global rate limit. */
  async removeGlobalRateLimit(): Promise<void> {
    await (await this.echo).setRateLimit(null);
  }

  /**
   * Limits the whole queue for `expireTimeMs`: no worker takes a job until then (BullMQ's manual
   * rate limit, from outside a worker). A processor throws `Worker.RateLimitError()` after it to
   * put its current job back. As in BullMQ, it holds a queue that has a rate limit (a worker's
   * `limiter`, or `setGlobalRateLimit`); a queue without one is not limited by it.
   */
  async rateLimit(expireTimeMs: number): Promise<void> {
    await (await this.echo).rateLimit(expireTimeMs);
  }

  /** Appends a line to a job's log, keeping the newest `keepLogs` (default: the job's own `keepLogs`); answers the log's length. */
  async addJobLog(jobId: string, logRow: string, keepLogs?: number): Promise<number> {
    checkKeepLogs(keepLogs);
    const job = await this.getJob(jobId);
    if (!job) throw new Error(`Missing key for job ${jobId}. addLog`);
    if (keepLogs === undefined) return job.log(logRow);
    return (await this.echo).addLog(job.echoId, logRow, keepLogs);
  }

  /** Reports a job's progress (as `job.updateProgress`); emits `progress` with the job's id and the progress. */
  async updateJobProgress(jobId: string, progress: JobProgress): Promise<void> {
    const job = await this.getJob(jobId);
    if (!job) throw new Error(`Missing key for job ${jobId}. updateProgress`);
    await job.updateProgress(progress);
    // BullMQ's Queue tells its own listeners, with the job's id.
    this.emit('progress', jobId, progress);
  }

  /**
   * Runs every failed job again (`state` 'failed', the default), oldest first, `count` (default
   * 1000) per step as BullMQ does; with `timestamp`, only those that failed before it. With
   * `state: 'completed'`, the completed jobs the queue kept (BullMQ's default keeps them all).
   */
  async retryJobs(opts: { readonly count?: number; readonly state?: 'failed' | 'completed'; readonly timestamp?: number } = {}): Promise<void> {
    checkRetryJobs(opts);
    const queue = await this.echo;
    const chunk = Math.min(opts.count ?? 1000, 1000);
    if (opts.state === 'completed') {
      // Completed jobs the retention kept, each run again as job.retry('completed') does.
      await retryFinishedBefore(queue, 'completed', opts.timestamp ?? Number.POSITIVE_INFINITY, chunk);
      return;
    }
    if (opts.timestamp === undefined) {
      await queue.retryJobs({ state: 'dead', chunk });
      return;
    }
    await retryFinishedBefore(queue, 'dead', opts.timestamp, chunk);
  }

  /**
   * BullMQ deletes job hashes left without a state here. Echo writes a job's row and its state in
   * one script, so there are none to find: answers 0.
   */
  async removeOrphanedJobs(_count = 1000, _limit = 0): Promise<number> {
    await this.echo;
    return 0;
  }

  /** Ends the queue's current rate window (the limit stays): answers 1 when one was open, else 0. */
  async removeRateLimitKey(): Promise<number> {
    return (await (await this.echo).resetRateLimit()) ? 1 : 0;
  }

  /** Frees a deduplication id before its job ends (the next add with it is added); answers 1 when it was held, else 0. */
  async removeDeduplicationKey(deduplicationId: string): Promise<number> {
    return (await (await this.echo).releaseDedup(keyOfJobId(deduplicationId))) ? 1 : 0;
  }

  /** Not supported: Echo's events go over a channel, not a stream to trim. */
  trimEvents(_maxLength: number): Promise<number> {
    return Promise.reject(new NotSupportedError('trimEvents', 'events travel on a channel here; the opt-in journal is trimmed by its own bound'));
  }

  /** Closes the queue's connection. */
  async close(): Promise<void> {
    const queue = await this.echo.catch(() => undefined);
    await queue?.close();
  }

  async #addRepeat(name: NameType, data: DataType, opts: JobsOptions): Promise<Job<DataType, ResultType, NameType>> {
    const { repeat, jobId, ...rest } = opts;
    if (jobId !== undefined) throw new InvalidArgumentError('jobId', 'a repeating job takes its id from repeat.key');
    const { key, ...cadence } = repeat as RepeatOptions;
    const id = key ?? `${name}:${cadence.pattern ?? String(cadence.every)}`;
    const job = await this.upsertJobScheduler(id, cadence, { name, data, opts: rest });
    if (job === undefined) throw new InvalidArgumentError('repeat', 'the repeat options leave no run to make');
    return job;
  }

  /**
   * Retention is a queue setting in Echo: the newest job options that name it set it for the queue.
   * Before the first write, BullMQ's default (keep completed jobs) goes in unless one is set: at the
   * first add, not at open, so a refused call writes nothing.
   */
  async #applyKeep(queue: EchoQueue<Envelope>, opts: JobsOptions): Promise<void> {
    await (this.#defaulted ??= keepCompletedByDefault(queue));
    await this.#recordMeta(queue);
    if (opts.removeOnComplete === undefined && opts.removeOnFail === undefined) return;
    const next = { ...this.#keep };
    if (opts.removeOnComplete !== undefined) next.completed = keepBound(opts.removeOnComplete);
    if (opts.removeOnFail !== undefined) next.failed = keepBound(opts.removeOnFail);
    const shape = JSON.stringify(next, (_k, v: unknown) => (v === Number.POSITIVE_INFINITY ? 'inf' : v));
    if (shape === this.#keepApplied) return;
    await queue.setRetention(next);
    this.#keep = next;
    this.#keepApplied = shape;
  }
}

/**
 * Whether a job takes the next id of the queue's counter: when it has no `jobId`. A deduplicated
 * add takes one too, as in BullMQ (the number of a refused add is not used again); one that
 * replaces the kept job's data gives that job its number.
 */
function counted(opts: JobsOptions): boolean {
  return opts.jobId === undefined;
}


export type { KeepJobs, QueueOptions };
export { openQueue } from './queue/options.js';
