import { EventEmitter } from 'node:events';
import { InvalidArgumentError, MalformedIdError, strictOptions } from '@echo/protocol';
import { Queue as EchoQueue, type CountName, type KeepBound, type ListState } from '@echo/queue';
import { echoConnection, type ConnectionOptions } from './connection.js';
import type { Envelope } from './envelope.js';
import { keepCompletedByDefault, nextJobIds, resetJobIds } from './defaults.js';
import { NotSupportedError } from './errors.js';
import { echoQueueName, keyOfJobId } from './ids.js';
import { Job } from './job.js';
import { checkOptions, enqueueOptions, keepBound, storedOptions, type JobsOptions, type KeepJobs } from './job-options.js';
import { checkRepeat, schedulerCadence, schedulerOptions, type RepeatOptions } from './schedulers.js';

/** `new Queue(name, opts)`'s options, as BullMQ names them. */
export interface QueueOptions {
  /** Where Redis is: `{ host, port }` (and credentials), or an Echo `Connection` to share. */
  readonly connection?: ConnectionOptions;
  /** Options every `add` starts from. */
  readonly defaultJobOptions?: JobsOptions;
  /**
   * BullMQ's key prefix. The default `bull` is Echo's queue of the same name; another prefix keeps
   * its queues apart (it becomes part of the Echo queue's name).
   */
  readonly prefix?: string;
}

/** BullMQ's job types, in lists and counts. */
export type JobType = 'waiting' | 'wait' | 'active' | 'delayed' | 'completed' | 'failed' | 'waiting-children' | 'prioritized' | 'paused';

/** A job scheduler, as `getJobSchedulers` lists it. */
export interface JobSchedulerJson<D = unknown> {
  /** The scheduler's id. */
  readonly key: string;
  /** Same as `key`. */
  readonly id: string;
  /** The name of the jobs it makes. */
  readonly name: string;
  /** The cron pattern, when it has one. */
  readonly pattern?: string;
  /** Every this many ms, when it has no pattern. */
  readonly every?: number;
  /** The pattern's time zone. */
  readonly tz?: string;
  /** The last allowed run time. */
  readonly endDate?: number;
  /** Runs left to make, when limited. */
  readonly limit?: number;
  /** The next run time, epoch ms. */
  readonly next: number;
  /** The data and options of the jobs it makes. */
  readonly template: { readonly data: D; readonly opts?: JobsOptions };
}

const checkQueueOptions = strictOptions('Queue options', {
  known: ['connection', 'defaultJobOptions', 'prefix'],
  hints: { streams: 'the events channel is Echo\'s (at most once); the durable journal is set on @echo/queue', telemetry: 'tracing comes through @echo/otel' },
});

const checkObliterateOptions = strictOptions('obliterate options', { known: ['force'], hints: { count: 'Echo obliterates in bounded chunks by itself' } });
const LIST: Readonly<Record<string, ListState>> = { waiting: 'pending', wait: 'pending', prioritized: 'pending', paused: 'pending', active: 'active', delayed: 'scheduled', completed: 'completed', failed: 'dead' };
const COUNT: Readonly<Record<string, CountName>> = { waiting: 'pending', wait: 'pending', active: 'active', delayed: 'scheduled', completed: 'retained', failed: 'dead', 'waiting-children': 'awaiting_children' };
const DEFAULT_COUNTS: readonly JobType[] = ['waiting', 'active', 'delayed', 'completed', 'failed', 'waiting-children'];

/**
 * BullMQ's `Queue` over an Echo queue: add jobs, read them, control the queue. The connection opens
 * in the background (BullMQ's constructor is synchronous); every method waits for it.
 */
export class Queue<DataType = unknown, ResultType = unknown, NameType extends string = string> extends EventEmitter {
  /** The queue's name. */
  readonly name: string;
  /** The options every `add` starts from. */
  readonly defaultJobOptions: JobsOptions;
  readonly #ready: Promise<EchoQueue<Envelope>>;
  #keep: { completed?: KeepBound; failed?: KeepBound } = {};
  #keepApplied = '';
  #defaulted: Promise<void> | undefined;

  constructor(name: string, opts: QueueOptions = {}) {
    super();
    checkQueueOptions(opts);
    if (opts.defaultJobOptions !== undefined) checkOptions(opts.defaultJobOptions);
    this.name = name;
    this.defaultJobOptions = opts.defaultJobOptions ?? {};
    this.#ready = EchoQueue.open<Envelope>(echoQueueName(name, opts.prefix), echoConnection(opts.connection));
    this.#ready.catch((error: unknown) => {
      if (this.listenerCount('error') > 0) this.emit('error', error);
    });
  }

  /** Resolves once the connection is open. */
  async waitUntilReady(): Promise<void> {
    await this.#ready;
  }

  /** Adds a job; with `repeat`, upserts a job scheduler instead. A known `jobId` returns the existing job. */
  async add(name: NameType, data: DataType, opts: JobsOptions = {}): Promise<Job<DataType, ResultType, NameType>> {
    const merged = { ...this.defaultJobOptions, ...opts };
    checkOptions(merged);
    const queue = await this.#ready;
    if (merged.repeat !== undefined) return this.#addRepeat(queue, name, data, merged);
    await this.#applyKeep(queue, merged);
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
    const prepared = jobs.map((job) => {
      const merged = { ...this.defaultJobOptions, ...job.opts };
      checkOptions(merged);
      if (merged.repeat !== undefined) throw new NotSupportedError('addBulk with repeat', 'add repeating jobs one by one (or through upsertJobScheduler)');
      return { job, merged };
    });
    const queue = await this.#ready;
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

  /** The job with this id (the `jobId` it was added with, or the id Echo minted), or undefined. */
  async getJob(jobId: string): Promise<Job<DataType, ResultType, NameType> | undefined> {
    const queue = await this.#ready;
    const record = (await queue.getJobByKey(keyOfJobId(jobId))) ?? (await byEchoId(queue, jobId));
    return record ? Job.fromRecord<DataType, ResultType, NameType>(queue, record) : undefined;
  }

  /**
   * Jobs of the given types; `start`/`end` index into each list (`end` -1: up to 1000). Waiting and
   * prioritized jobs share Echo's pending set, so each is that set filtered by priority.
   */
  async getJobs(types: JobType | readonly JobType[] = ['waiting', 'active', 'delayed', 'completed', 'failed'], start = 0, end = -1, asc = false): Promise<Job<DataType, ResultType, NameType>[]> {
    if (asc) throw new NotSupportedError('getJobs(…, asc: true)', 'lists come in the order Echo keeps them');
    const queue = await this.#ready;
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

  /** Counts per type: `waiting`, `active`, `delayed`, `completed` (kept), `failed`, `waiting-children`. */
  async getJobCounts(...types: JobType[]): Promise<Record<string, number>> {
    const asked = types.length === 0 ? DEFAULT_COUNTS : types;
    const names = asked.map((type) => {
      const name = COUNT[type];
      if (name === undefined) throw new NotSupportedError(`getJobCounts('${type}')`, type === 'prioritized' ? "prioritized jobs are counted in 'waiting' here" : "a paused queue's jobs are counted in 'waiting' here");
      return name;
    });
    const queue = await this.#ready;
    const counted = await queue.counts(...names);
    const out: Record<string, number> = {};
    asked.forEach((type, i) => (out[type] = counted[names[i] as CountName]));
    return out;
  }

  /** The sum of the counts of `types`. */
  async getJobCountByTypes(...types: JobType[]): Promise<number> {
    const counts = await this.getJobCounts(...types);
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  /** Jobs waiting or delayed. */
  count(): Promise<number> {
    return this.getJobCountByTypes('waiting', 'delayed');
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

  /** Stops every worker of the queue from taking jobs. */
  async pause(): Promise<void> { await (await this.#ready).pause(); }
  /** Lets workers take jobs again. */
  async resume(): Promise<void> { await (await this.#ready).resume(); }
  /** True while the queue is paused. */
  async isPaused(): Promise<boolean> { return (await this.#ready).isPaused(); }

  /** Removes every waiting job (and the delayed ones with `delayed: true`). */
  async drain(delayed = false): Promise<void> {
    await (await this.#ready).drain({ includeScheduled: delayed });
  }

  /**
   * Removes finished jobs older than `grace` ms, at most `limit` (0: all). Answers how many were
   * removed (BullMQ answers their ids).
   */
  async clean(grace: number, limit: number, type: 'completed' | 'failed' = 'completed'): Promise<number> {
    if ((type as string) !== 'completed' && (type as string) !== 'failed') throw new NotSupportedError(`clean(…, '${type}')`, 'only finished jobs are cleaned here; drain() empties the waiting ones');
    if (!Number.isFinite(grace) || grace < 0) throw new InvalidArgumentError('grace', 'must be a number of ms >= 0');
    const queue = await this.#ready;
    return queue.clean({ state: type === 'failed' ? 'dead' : 'completed', olderThanMs: grace, ...(limit > 0 ? { limit } : {}) });
  }

  /** Deletes the queue and every job in it; `force` also when jobs are running. */
  async obliterate(opts: { readonly force?: boolean } = {}): Promise<void> {
    checkObliterateOptions(opts);
    const queue = await this.#ready;
    // As in BullMQ, obliterate pauses the queue first, so no worker takes a job meanwhile.
    await queue.pause();
    await queue.obliterate({ force: opts.force ?? false });
    await resetJobIds(queue);
  }

  /** Removes a job; answers 1 when it was there, 0 otherwise. Refused while a worker holds it. */
  async remove(jobId: string): Promise<number> {
    const job = await this.getJob(jobId);
    if (!job) return 0;
    await job.remove();
    return 1;
  }

  /**
   * Creates or updates a job scheduler: jobs named `template.name` made every `every` ms or on
   * `pattern`. Answers undefined: Echo makes each job when it falls due, so there is no first job
   * waiting in the delayed set (BullMQ answers that job).
   */
  async upsertJobScheduler(id: string, repeat: RepeatOptions, template: { readonly name?: NameType; readonly data?: DataType; readonly opts?: JobsOptions } = {}): Promise<Job<DataType, ResultType, NameType> | undefined> {
    checkRepeat(repeat);
    if (repeat.key !== undefined) throw new InvalidArgumentError('repeat.key', 'the scheduler id is the first argument here');
    const opts = { ...this.defaultJobOptions, ...template.opts };
    checkOptions(opts);
    if (opts.jobId !== undefined || opts.repeat !== undefined || opts.delay !== undefined) throw new InvalidArgumentError('template.opts', 'a scheduler template takes no jobId, repeat or delay');
    const queue = await this.#ready;
    await this.#applyKeep(queue, opts);
    const envelope: Envelope = { ...makeEnvelope(template.name ?? id, template.data, opts), r: id };
    await queue.upsertScheduler(keyOfJobId(id), schedulerCadence(repeat), envelope, schedulerOptions(repeat));
    return undefined;
  }

  /** One job scheduler, or undefined. */
  async getJobScheduler(id: string): Promise<JobSchedulerJson<DataType> | undefined> {
    return (await this.getJobSchedulers()).find((s) => s.id === id);
  }

  /** The job schedulers, by next run time (`asc`) or latest first; `start`/`end` slice the list. */
  async getJobSchedulers(start = 0, end = -1, asc = false): Promise<JobSchedulerJson<DataType>[]> {
    const all = await this.#schedulers();
    all.sort((a, b) => (asc ? a.next - b.next : b.next - a.next));
    return all.slice(start, end < 0 ? undefined : end + 1);
  }

  async #schedulers(): Promise<JobSchedulerJson<DataType>[]> {
    const queue = await this.#ready;
    return (await queue.getSchedulers()).map((info) => ({
      key: info.template.r ?? info.id,
      id: info.template.r ?? info.id,
      name: info.template.n,
      ...(info.cron === undefined ? {} : { pattern: info.cron }),
      ...(info.everyMs === undefined ? {} : { every: info.everyMs }),
      ...(info.tz === undefined ? {} : { tz: info.tz }),
      ...(info.endAt === undefined ? {} : { endDate: info.endAt.getTime() }),
      ...(info.limit === undefined ? {} : { limit: info.limit }),
      next: info.next.getTime(),
      template: { data: info.template.d as DataType, ...(info.template.o === undefined ? {} : { opts: info.template.o }) },
    }));
  }

  /** Removes a job scheduler; answers whether it existed. */
  async removeJobScheduler(id: string): Promise<boolean> {
    return (await this.#ready).removeScheduler(keyOfJobId(id));
  }

  /** How long the queue stays rate limited, ms (0: not limited); `maxJobs` is the limiter's max. */
  async getRateLimitTtl(maxJobs?: number): Promise<number> {
    return (await this.#ready).getRateLimitTtl(maxJobs);
  }

  /** Not supported: the window is kept by the queue's limiter; `setRateLimit(null)` on `@echo/queue` lifts it. */
  removeRateLimitKey(): Promise<number> {
    return Promise.reject(new NotSupportedError('removeRateLimitKey', "the window is kept by the queue's limiter script"));
  }

  /** The id of the job that holds a deduplication id, or undefined. */
  async getDeduplicationJobId(deduplicationId: string): Promise<string | undefined> {
    const queue = await this.#ready;
    const echoId = await queue.getDedupJobId(keyOfJobId(deduplicationId));
    if (echoId === undefined) return undefined;
    const record = await queue.getJob(echoId);
    return record?.payload.i ?? echoId;
  }

  /** Not supported: a deduplication id is released by its job's end (or its ttl). */
  removeDeduplicationKey(_deduplicationId: string): Promise<number> {
    return Promise.reject(new NotSupportedError('removeDeduplicationKey', "a deduplication id is released in the script that ends its job, or by its ttl"));
  }

  /** Not supported: Echo's events go over a channel, not a stream to trim. */
  trimEvents(_maxLength: number): Promise<number> {
    return Promise.reject(new NotSupportedError('trimEvents', 'events travel on a channel here; the opt-in journal is trimmed by its own bound'));
  }

  /** Closes the queue's connection. */
  async close(): Promise<void> {
    const queue = await this.#ready.catch(() => undefined);
    await queue?.close();
  }

  async #addRepeat(queue: EchoQueue<Envelope>, name: NameType, data: DataType, opts: JobsOptions): Promise<Job<DataType, ResultType, NameType>> {
    const repeat = opts.repeat as RepeatOptions;
    checkRepeat(repeat);
    if (opts.jobId !== undefined) throw new InvalidArgumentError('jobId', 'a repeating job takes its id from repeat.key');
    const id = repeat.key ?? `${name}:${repeat.pattern ?? String(repeat.every)}`;
    const { repeat: _repeat, ...rest } = opts;
    const envelope: Envelope = { ...makeEnvelope(name, data, rest), r: id };
    await this.#applyKeep(queue, rest);
    await queue.upsertScheduler(keyOfJobId(id), schedulerCadence(repeat), envelope, schedulerOptions(repeat));
    return new Job(queue, `repeat:${id}`, { ...envelope, i: `repeat:${id}` });
  }

  /**
   * Retention is a queue setting in Echo: the newest job options that name it set it for the queue.
   * Before the first write, BullMQ's default (keep completed jobs) goes in unless one is set: at the
   * first add, not at open, so a refused call writes nothing.
   */
  async #applyKeep(queue: EchoQueue<Envelope>, opts: JobsOptions): Promise<void> {
    await (this.#defaulted ??= keepCompletedByDefault(queue));
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
 * Whether a job takes the next id of the queue's counter: when it has no `jobId`, and no
 * deduplication id (a deduplicated add that replaces the kept job's data would carry its own,
 * unused number into that job, so such a job keeps Echo's id).
 */
function counted(opts: JobsOptions): boolean {
  return opts.jobId === undefined && opts.deduplication === undefined;
}

/** The stored payload of a job; `id` is its BullMQ id (the `jobId`, or the one the queue's counter gave). */
export function makeEnvelope(name: string, data: unknown, opts: JobsOptions, id = opts.jobId): Envelope {
  const o = storedOptions(opts);
  return { n: name, d: data, t: opts.timestamp ?? Date.now(), ...(id === undefined ? {} : { i: id }), ...(o === undefined ? {} : { o }) };
}

/** Opens the Echo queue under a BullMQ queue, with BullMQ's default of keeping completed jobs. */
export async function openQueue(echoName: string, connection: ConnectionOptions | undefined): Promise<EchoQueue<Envelope>> {
  const queue = await EchoQueue.open<Envelope>(echoName, echoConnection(connection));
  try {
    await keepCompletedByDefault(queue);
    return queue;
  } catch (error) {
    await queue.close();
    throw error;
  }
}

async function byEchoId(queue: EchoQueue<Envelope>, id: string): Promise<Awaited<ReturnType<EchoQueue<Envelope>['getJob']>>> {
  try {
    return await queue.getJob(id);
  } catch (error) {
    if (error instanceof MalformedIdError) return undefined;
    throw error;
  }
}

export type { KeepJobs };
