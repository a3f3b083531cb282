import { EventEmitter } from 'node:events';
import { InvalidArgumentError, queueKeys } from '@echo/protocol/queue';
import type { CountName, ListState, Queue as EchoQueue } from '@echo/queue';
import type { Envelope } from './envelope.js';
import { NotSupportedError } from './errors.js';
import { DEFAULT_PREFIX, keyOfJobId } from './ids.js';
import { Job, type JobState } from './job.js';
import { recordOfJobId } from './job-lookup.js';
import type { JobsOptions } from './job-options.js';
import { namedClients, queueEventsClientName, readGates, sliceLog, workerEntries, type WorkerEntry } from './queue-extras.js';
import { readScheduler, readSchedulers, type SchedulerRecord } from './schedulers/job-schedulers.js';
import { dependencyList, type DependencyList } from './queue/dependency-list.js';
import { readMeta, type QueueMeta } from './queue/meta.js';
import { prometheusText, readMetrics, type Metrics } from './queue/metrics.js';

/** BullMQ's job types, in lists and counts. */
export type JobType = 'waiting' | 'wait' | 'active' | 'delayed' | 'completed' | 'failed' | 'waiting-children' | 'prioritized' | 'paused';

/** A job scheduler, as `getJobSchedulers` lists it. */
export interface JobSchedulerJson<D = unknown> {
  /** The scheduler's id. */
  readonly key: string;
  /** The name of the jobs it makes. */
  readonly name: string;
  /** The cron pattern, when it has one. */
  readonly pattern?: string;
  /** Every this many ms, when it has no pattern. */
  readonly every?: number;
  /** The slot within each period its runs fall on, ms. */
  readonly offset?: number;
  /** The pattern's time zone. */
  readonly tz?: string;
  /** The first allowed run time. */
  readonly startDate?: number;
  /** The last allowed run time. */
  readonly endDate?: number;
  /** At most this many jobs in all. */
  readonly limit?: number;
  /** How many jobs it has made. */
  readonly iterationCount: number;
  /** The run its next job is for, epoch ms. */
  readonly next: number;
  /** The data and options of the jobs it makes, when it was given either. */
  readonly template?: { readonly data?: D; readonly opts?: JobsOptions };
}

const LIST: Readonly<Record<string, ListState>> = { waiting: 'pending', wait: 'pending', prioritized: 'pending', paused: 'pending', active: 'active', delayed: 'scheduled', completed: 'completed', failed: 'dead' };
const COUNT: Readonly<Record<string, CountName>> = { waiting: 'pending', wait: 'pending', active: 'active', delayed: 'scheduled', completed: 'retained', failed: 'dead', 'waiting-children': 'awaiting_children' };
/** BullMQ's types when none is asked, in its order. */
const DEFAULT_COUNTS: readonly JobType[] = ['active', 'completed', 'delayed', 'failed', 'prioritized', 'waiting', 'waiting-children'];

/**
 * The reading half of BullMQ's `Queue`: jobs, lists, counts, schedulers, limits and workers, read
 * from the Echo queue under it. `Queue` adds the writes.
 */
export class QueueGetters<DataType = unknown, ResultType = unknown, NameType extends string = string> extends EventEmitter {
  /** The queue's name. */
  readonly name: string;
  /** @internal The Echo queue, once its connection is open. */
  protected readonly echo: Promise<EchoQueue<Envelope>>;

  /** BullMQ's qualified name, `<prefix>:<name>` (the prefix its keys would start with). */
  readonly qualifiedName: string;
  readonly #prefix: string;

  /** @internal */
  constructor(name: string, echo: Promise<EchoQueue<Envelope>>, prefix = DEFAULT_PREFIX) {
    super();
    this.name = name;
    this.qualifiedName = `${prefix}:${name}`;
    this.#prefix = prefix;
    this.echo = echo;
    this.echo.catch((error: unknown) => {
      if (this.listenerCount('error') > 0) this.emit('error', error);
    });
  }

  /** BullMQ's key of `type` in this queue (`<prefix>:<name>:<type>`); a job's key when `type` is its id. */
  toKey(type: string): string {
    return `${this.qualifiedName}:${type}`;
  }

  /** How many parents wait for their children. */
  getWaitingChildrenCount(): Promise<number> { return this.getJobCountByTypes('waiting-children'); }

  /** Resolves once the connection is open. */
  async waitUntilReady(): Promise<void> {
    await this.echo;
  }

  /** The job with this id (the `jobId` it was added with, or the id Echo minted), or undefined. */
  async getJob(jobId: string): Promise<Job<DataType, ResultType, NameType> | undefined> {
    const queue = await this.echo;
    const record = await recordOfJobId(queue, jobId);
    return record ? Job.fromRecord<DataType, ResultType, NameType>(queue, record) : undefined;
  }

  /** Where the job `jobId` is now; `unknown` when there is no such job. */
  async getJobState(jobId: string): Promise<JobState> {
    const job = await this.getJob(jobId);
    return job ? job.getState() : 'unknown';
  }

  /**
   * Jobs of the given types; `start`/`end` index into each list (`end` -1: up to 1000); `asc` gives
   * the oldest first (finished jobs by when they finished), read whole (up to 1000 jobs). Waiting and
   * prioritized jobs share Echo's pending set, so each is that set filtered by priority.
   */
  async getJobs(types: JobType | readonly JobType[] = ['waiting', 'active', 'delayed', 'completed', 'failed'], start = 0, end = -1, asc = false): Promise<Job<DataType, ResultType, NameType>[]> {
    // Ascending is the other end of each list first: read the lists whole (up to 1000), then slice.
    if (asc) return ascending(await this.getJobs(types, 0, -1, false), start, end);
    const queue = await this.echo;
    const wanted = new Map<ListState, 'all' | 'plain' | 'prioritized'>();
    for (const type of typeof types === 'string' ? [types] : types) {
      const state = LIST[type];
      if (state === undefined) throw new NotSupportedError(`getJobs('${type}')`, 'Echo keeps no list of that state');
      const filter = type === 'prioritized' ? 'prioritized' : state === 'pending' ? 'plain' : 'all';
      const before = wanted.get(state);
      wanted.set(state, before === undefined || before === filter ? filter : 'all');
    }
    const limit = Math.min(end < 0 ? 1000 : end - start + 1, 1000);
    const out: Job<DataType, ResultType, NameType>[] = [];
    if (limit <= 0) return out;
    for (const [state, filter] of wanted) {
      const page = await queue.listJobs(state, { offset: start, limit });
      for (const listed of page.jobs) {
        if (!listed.record) continue;
        const job = Job.fromRecord<DataType, ResultType, NameType>(queue, listed.record);
        const prioritized = (job.opts.priority ?? 0) > 0;
        if (filter === 'all' || (filter === 'prioritized') === prioritized) out.push(job);
      }
    }
    return out;
  }

  /** Prioritized jobs waiting. */
  getPrioritized(start = 0, end = -1): Promise<Job<DataType, ResultType, NameType>[]> {
    return this.getJobs(['prioritized'], start, end);
  }

  /**
   * Counts per type (by default `active`, `completed` (kept), `delayed`, `failed`, `prioritized`,
   * `waiting`, `waiting-children`, as BullMQ answers).
   * `paused` is always 0: since BullMQ 6 a paused queue's jobs stay in `waiting` (its `paused` list
   * is a legacy one, emptied on resume), and so they do here.
   */
  async getJobCounts(...types: JobType[]): Promise<Record<string, number>> {
    const all = types.length === 0 ? DEFAULT_COUNTS : types;
    const asked = all.filter((type) => type !== 'paused');
    if (asked.length < all.length) return { ...(asked.length === 0 ? {} : await this.getJobCounts(...asked)), paused: 0 };
    const names = asked.map((type) => {
      if (type === 'prioritized') return 'pending';
      const name = COUNT[type];
      if (name === undefined) throw new NotSupportedError(`getJobCounts('${type}')`, "a paused queue's jobs are counted in 'waiting' here");
      return name;
    });
    const queue = await this.echo;
    const splits = asked.some((type) => type === 'prioritized' || type === 'waiting' || type === 'wait');
    const [counted, prioritized] = await Promise.all([queue.counts(...names), splits ? prioritizedCount(queue) : 0]);
    const out: Record<string, number> = {};
    asked.forEach((type, i) => {
      const pending = counted[names[i] as CountName];
      // Waiting and prioritized jobs share Echo's pending set: BullMQ counts them apart.
      out[type] = type === 'prioritized' ? prioritized : type === 'waiting' || type === 'wait' ? pending - prioritized : pending;
    });
    return out;
  }

  /**
   * How many jobs wait at each of `priorities` (0: without one), keyed by priority. Waiting jobs of
   * a paused queue count too: they stay waiting here, as in BullMQ 6.
   */
  async getCountsPerPriority(priorities: readonly number[]): Promise<Record<string, number>> {
    const unique = [...new Set(priorities)];
    for (const p of unique) if (!Number.isSafeInteger(p) || p < 0) throw new InvalidArgumentError('priorities', 'each must be an integer >= 0');
    const queue = await this.echo;
    const counts = await Promise.all(unique.map((p) => countAtPriority(queue, p)));
    return Object.fromEntries(unique.map((p, i) => [String(p), counts[i] ?? 0]));
  }

  /** How many jobs wait with a priority. */
  getPrioritizedCount(): Promise<number> { return this.getJobCountByTypes('prioritized'); }

  /** The sum of the counts of `types`. */
  async getJobCountByTypes(...types: JobType[]): Promise<number> {
    const counts = await this.getJobCounts(...types);
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  /** Jobs not yet run: waiting (with or without priority), delayed, or waiting for their children. */
  count(): Promise<number> {
    return this.getJobCountByTypes('waiting', 'prioritized', 'delayed', 'waiting-children');
  }

  /** Waiting jobs without priority. */
  getWaiting(start = 0, end = -1): Promise<Job<DataType, ResultType, NameType>[]> { return this.getJobs(['waiting'], start, end); }

  /** Running jobs. */
  getActive(start = 0, end = -1): Promise<Job<DataType, ResultType, NameType>[]> { return this.getJobs(['active'], start, end); }

  /** Jobs waiting on a time (delayed, or backing off before a retry). */
  getDelayed(start = 0, end = -1): Promise<Job<DataType, ResultType, NameType>[]> { return this.getJobs(['delayed'], start, end); }

  /** Kept completed jobs, newest first. */
  getCompleted(start = 0, end = -1): Promise<Job<DataType, ResultType, NameType>[]> { return this.getJobs(['completed'], start, end); }

  /** Failed jobs, newest first. */
  getFailed(start = 0, end = -1): Promise<Job<DataType, ResultType, NameType>[]> { return this.getJobs(['failed'], start, end); }

  /** How many jobs wait (with or without priority). */
  getWaitingCount(): Promise<number> { return this.getJobCountByTypes('waiting'); }

  /** How many jobs run. */
  getActiveCount(): Promise<number> { return this.getJobCountByTypes('active'); }

  /** How many jobs wait on a time. */
  getDelayedCount(): Promise<number> { return this.getJobCountByTypes('delayed'); }

  /** How many completed jobs are kept. */
  getCompletedCount(): Promise<number> { return this.getJobCountByTypes('completed'); }

  /** How many jobs failed for good. */
  getFailedCount(): Promise<number> { return this.getJobCountByTypes('failed'); }

  /** True while the queue is paused. */
  async isPaused(): Promise<boolean> { return (await this.echo).isPaused(); }

  /** One job scheduler, or undefined. */
  async getJobScheduler(id: string): Promise<JobSchedulerJson<DataType> | undefined> {
    const record = await readScheduler(await this.echo, id);
    return record === undefined ? undefined : schedulerJson<DataType>(id, record);
  }

  /** How many job schedulers the queue has. */
  async getJobSchedulersCount(): Promise<number> {
    return (await this.#schedulers()).length;
  }

  /** The job schedulers, by next run time (`asc`) or latest first; `start`/`end` slice the list. */
  async getJobSchedulers(start = 0, end = -1, asc = false): Promise<JobSchedulerJson<DataType>[]> {
    const all = await this.#schedulers();
    all.sort((a, b) => (asc ? a.next - b.next : b.next - a.next));
    return all.slice(start, end < 0 ? undefined : end + 1);
  }

  async #schedulers(): Promise<JobSchedulerJson<DataType>[]> {
    return (await readSchedulers(await this.echo)).map(([id, record]) => schedulerJson<DataType>(id, record));
  }

  /**
   * How long the queue stays rate limited, ms: 0 while its window (of `maxJobs`, default its limit's
   * max) is not full, -2 when neither `maxJobs` nor a limit is given (BullMQ's PTTL of no key).
   */
  async getRateLimitTtl(maxJobs?: number): Promise<number> {
    const queue = await this.echo;
    const ttl = await queue.getRateLimitTtl(maxJobs);
    if (ttl > 0) return ttl;
    if (maxJobs !== undefined && maxJobs > 0) return 0;
    return (await readGates(queue)).rateLimit === null ? -2 : 0;
  }

  /** The global concurrency cap, or null when none is set. */
  async getGlobalConcurrency(): Promise<number | null> {
    return (await readGates(await this.echo)).concurrency;
  }

  /** True when the global concurrency is set and that many jobs are active: no worker takes more now. */
  async isMaxed(): Promise<boolean> {
    return (await this.echo).isMaxed();
  }

  /** The queue's global settings: `paused`, `concurrency`, `max`/`duration`, `maxLenEvents`, `version`. */
  async getMeta(): Promise<QueueMeta> {
    return readMeta(await this.echo);
  }

  /** The global rate limit, or null when none is set. */
  async getGlobalRateLimit(): Promise<{ max: number; duration: number } | null> {
    return (await readGates(await this.echo)).rateLimit;
  }

  /**
   * The `QueueEvents` listening to this queue, one entry per connection (`CLIENT LIST`'s fields,
   * `name` the queue's). BullMQ deprecates it; kept for the applications that call it.
   */
  async getQueueEvents(): Promise<Record<string, string>[]> {
    return namedClients(await this.echo, queueEventsClientName(this.#prefix, this.name), this.name);
  }

  /** The live workers of the queue. */
  async getWorkers(): Promise<WorkerEntry[]> {
    return workerEntries(await this.echo);
  }

  /** How many workers are live. */
  async getWorkersCount(): Promise<number> {
    return (await this.getWorkers()).length;
  }

  /** A job's log lines (`start`/`end` inclusive, oldest first unless `asc` is false) and their count. */
  async getJobLogs(jobId: string, start = 0, end = -1, asc = true): Promise<{ logs: string[]; count: number }> {
    const job = await this.getJob(jobId);
    if (!job) return { logs: [], count: 0 };
    const lines = await (await this.echo).getLogs(job.echoId);
    return { logs: sliceLog(lines, start, end, asc), count: lines.length };
  }

  /**
   * A flow parent's `processed` (completed) or `pending` (open) children, `start`..`end` inclusive,
   * with their jobs and the total of that kind.
   */
  async getDependencies(parentId: string, type: 'processed' | 'pending', start: number, end: number): Promise<DependencyList> {
    return dependencyList(await this.echo, parentId, type, start, end);
  }

  /**
   * Completed or failed jobs: `meta.count` counts them all; `data` holds jobs per minute, newest
   * first (`start`..`end`), when the queue keeps minute counts (`setEvents({ minutes })` on
   * `@echo/queue`, by the server's clock), else it is empty.
   */
  async getMetrics(type: 'completed' | 'failed', start = 0, end = -1): Promise<Metrics> {
    return readMetrics(await this.echo, type, start, end);
  }

  /**
   * The queue's counts (`getJobCounts()`) and its completed and failed totals (`getMetrics`) in the
   * Prometheus text format, each line labelled with the queue and with `globalVariables`.
   */
  async exportPrometheusMetrics(globalVariables?: Readonly<Record<string, string>>): Promise<string> {
    const [counts, completed, failed] = await Promise.all([this.getJobCounts(), this.getMetrics('completed'), this.getMetrics('failed')]);
    return prometheusText(this.name, counts, completed.meta.count, failed.meta.count, globalVariables);
  }

  /** The id of the job that holds a deduplication id, or undefined. */
  async getDeduplicationJobId(deduplicationId: string): Promise<string | undefined> {
    const queue = await this.echo;
    const echoId = await queue.getDedupJobId(keyOfJobId(deduplicationId));
    if (echoId === undefined) return undefined;
    const record = await queue.getJob(echoId);
    return record?.payload.i ?? echoId;
  }
}

/**
 * Jobs oldest first (finished ones by when they finished), sliced as Redis slices a range. Finished
 * jobs come newest first, so two that finished in the same millisecond (a fast worker's usual case)
 * take the reverse of that order; other ties keep the order they were listed in.
 */
function ascending<J extends { readonly timestamp: number; readonly finishedOn?: number | null | undefined }>(jobs: J[], start: number, end: number): J[] {
  const tie = (a: { job: J; i: number }, b: { job: J; i: number }): number => (typeof a.job.finishedOn === 'number' && typeof b.job.finishedOn === 'number' ? b.i - a.i : a.i - b.i);
  const sorted = jobs.map((job, i) => ({ job, i })).sort((a, b) => (a.job.finishedOn ?? a.job.timestamp) - (b.job.finishedOn ?? b.job.timestamp) || tie(a, b)).map(({ job }) => job);
  const from = start < 0 ? Math.max(sorted.length + start, 0) : start;
  const to = end < 0 ? sorted.length + end : Math.min(end, sorted.length - 1);
  return sorted.slice(from, to + 1);
}

/** A stored scheduler as BullMQ's `getJobScheduler` shows it. */
function schedulerJson<D>(key: string, r: SchedulerRecord): JobSchedulerJson<D> {
  return {
    key,
    name: r.name,
    ...(r.pattern === undefined ? {} : { pattern: r.pattern }),
    ...(r.every === undefined ? {} : { every: r.every }),
    ...(r.offset === undefined ? {} : { offset: r.offset }),
    ...(r.tz === undefined ? {} : { tz: r.tz }),
    ...(r.startDate === undefined ? {} : { startDate: r.startDate }),
    ...(r.endDate === undefined ? {} : { endDate: r.endDate }),
    ...(r.limit === undefined ? {} : { limit: r.limit }),
    iterationCount: r.ic,
    next: r.next,
    // BullMQ shows a template only when the scheduler was given data or options.
    ...(r.data === undefined && r.opts === undefined ? {} : { template: { ...(r.data === undefined ? {} : { data: r.data as D }), ...(r.opts === undefined ? {} : { opts: r.opts }) } }),
  };
}

/**
 * How many pending jobs have a BullMQ priority: Echo scores a pending job -priority, and the
 * drop-in gives BullMQ's priority p as Echo's -p, so those score p (a LIFO one p - 0.5 - a little,
 * at least 0.25). An unprioritized job scores 0, a LIFO one below 0, and one that
 * `changePriority` moved to priority 0 just above 0 and below 0.25 (one ZCOUNT).
 */
async function prioritizedCount(queue: EchoQueue<Envelope>): Promise<number> {
  return Number(await queue.connection.command('ZCOUNT', queueKeys(queue.name).pending, '0.25', '+inf'));
}

/**
 * How many pending jobs wait at BullMQ priority `priority`, by the scores {@link prioritizedCount}
 * describes: priority 0 below 0.25, priority p in p - 0.75 .. p (its LIFO jobs just under p - 0.5).
 */
async function countAtPriority(queue: EchoQueue<Envelope>, priority: number): Promise<number> {
  const [min, max] = priority === 0 ? ['-inf', '(0.25'] : [String(priority - 0.75), String(priority)];
  return Number(await queue.connection.command('ZCOUNT', queueKeys(queue.name).pending, min, max));
}
