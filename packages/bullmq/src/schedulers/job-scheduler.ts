import { EventEmitter } from 'node:events';
import type { Queue as EchoQueue } from '@echo/queue';
import { openEnvelope, type Envelope } from '../envelope.js';
import { keyOfJobId } from '../ids.js';
import { Job } from '../job.js';
import type { JobsOptions, RepeatOptions } from '../job-options.js';
import type { JobSchedulerJson } from '../queue-getters.js';
import { advanceScheduler, readScheduler } from './job-schedulers.js';
import type { RepeatStrategy } from './next-millis.js';

/**
 * What a {@link JobScheduler} works through: the queue it belongs to. The queue keeps the checks and
 * the retention an upsert applies, so the scheduler object adds no second path to them.
 * @internal
 */
export interface JobSchedulerHost<DataType, ResultType, NameType extends string> {
  /** The Echo queue, once its connection is open. */
  readonly echo: Promise<EchoQueue<Envelope>>;
  /** A pattern scheduler's next run, when the queue was given a strategy. */
  readonly repeatStrategy: RepeatStrategy | undefined;
  /** `queue.upsertJobScheduler`. */
  upsertJobScheduler(id: string, repeat: RepeatOptions, template: { readonly name?: NameType; readonly data?: DataType; readonly opts?: JobsOptions }): Promise<Job<DataType, ResultType, NameType> | undefined>;
  /** `queue.getJobScheduler`. */
  getJobScheduler(id: string): Promise<JobSchedulerJson<DataType> | undefined>;
  /** `queue.getJobSchedulers`. */
  getJobSchedulers(start?: number, end?: number, asc?: boolean): Promise<JobSchedulerJson<DataType>[]>;
  /** `queue.getJobSchedulersCount`. */
  getJobSchedulersCount(): Promise<number>;
  /** `queue.removeJobScheduler`. */
  removeJobScheduler(id: string): Promise<boolean>;
}

/** `upsertJobScheduler`'s last argument, as BullMQ names it. */
export interface JobSchedulerUpsertOptions {
  /** True (the default): create or update the scheduler. False: move it on from the job `producerId` started. */
  readonly override?: boolean;
  /** The id of the job whose start moves the scheduler on (with `override: false`). */
  readonly producerId?: string;
}

/**
 * BullMQ's `JobScheduler`, the object behind `queue.jobScheduler`: the scheduler operations of one
 * queue, and an event emitter whose `error` events the queue forwards as its own.
 */
export class JobScheduler<DataType = unknown, ResultType = unknown, NameType extends string = string> extends EventEmitter {
  /** The queue's name. */
  readonly name: string;
  readonly #host: JobSchedulerHost<DataType, ResultType, NameType>;

  /**
   * Made by `queue.jobScheduler`, not by applications.
   * @param name - The queue's name.
   * @param host - The queue the scheduler works through.
   * @internal
   */
  constructor(name: string, host: JobSchedulerHost<DataType, ResultType, NameType>) {
    super();
    this.name = name;
    this.#host = host;
  }

  /** Resolves once the queue's connection is open. */
  async waitUntilReady(): Promise<void> {
    await this.#host.echo;
  }

  /**
   * BullMQ's `upsertJobScheduler(id, repeatOpts, jobName, jobData, opts, { override, producerId })`:
   * with `override` (the default) creates or updates the scheduler as `queue.upsertJobScheduler`
   * does; with `override: false`, makes the run after the one job `producerId` is for, as a worker
   * does when that job starts, and answers its job (undefined when the scheduler is already past
   * that run, or has no run left).
   */
  async upsertJobScheduler(id: string, repeatOpts: RepeatOptions, jobName: NameType, jobData?: DataType, opts: JobsOptions = {}, upsert: JobSchedulerUpsertOptions = {}): Promise<Job<DataType, ResultType, NameType> | undefined> {
    if (upsert.override !== false) return this.#host.upsertJobScheduler(id, repeatOpts, { name: jobName, ...(jobData === undefined ? {} : { data: jobData }), opts });
    if (upsert.producerId === undefined) return undefined;
    const queue = await this.#host.echo;
    const producer = await queue.getJobByKey(keyOfJobId(upsert.producerId));
    if (producer === undefined) return undefined;
    const envelope = openEnvelope(producer.payload);
    if (envelope.r !== id) return undefined;
    const made = await advanceScheduler(queue, envelope, this.#host.repeatStrategy);
    return made === undefined ? undefined : new Job<DataType, ResultType, NameType>(queue, made.echoId, made.envelope);
  }

  /** Whether a job scheduler with this id exists. */
  async isJobScheduler(id: string): Promise<boolean> {
    return (await readScheduler(await this.#host.echo, id)) !== undefined;
  }

  /** One job scheduler, or undefined. */
  getScheduler(id: string): Promise<JobSchedulerJson<DataType> | undefined> {
    return this.#host.getJobScheduler(id);
  }

  /** The job schedulers, by next run time (`asc`) or latest first; `start`/`end` slice the list. */
  getJobSchedulers(start = 0, end = -1, asc = false): Promise<JobSchedulerJson<DataType>[]> {
    return this.#host.getJobSchedulers(start, end, asc);
  }

  /** How many job schedulers the queue has. */
  getSchedulersCount(): Promise<number> {
    return this.#host.getJobSchedulersCount();
  }

  /** Removes a job scheduler and its delayed next job; answers 1 when it existed, else 0 (BullMQ's count). */
  async removeJobScheduler(id: string): Promise<number> {
    return (await this.#host.removeJobScheduler(id)) ? 1 : 0;
  }

  /** Nothing to close: the scheduler shares its queue's connection, which the queue closes. */
  async close(): Promise<void> {
    // Kept for BullMQ's API: its JobScheduler owns a connection, this one does not.
  }
}
