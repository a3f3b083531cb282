import { EventEmitter } from 'node:events';
import { InvalidArgumentError, strictOptions, type LifecycleEvent } from '@echo/protocol/queue';
import { progressValue, Queue as EchoQueue, resultValue, type QueueEvents as EchoQueueEvents } from '@echo/queue';
import { echoConnection, type ConnectionOptions } from './connection.js';
import { openEnvelope, type Envelope } from './envelope.js';
import { BullMQInputError } from './errors.js';
import { DEFAULT_PREFIX, definedOnly, echoQueueName, keyOfJobId, rememberedJobId } from './ids.js';
import { queueEventsClientName } from './queue-extras.js';
import { CUSTOM_EVENT } from './queue-events-producer.js';
import { failedReasonOf } from './flow/child-failure.js';
import { STALLED_REASON } from './stalled-reason.js';

/** `new QueueEvents(name, opts)`'s options. */
export interface QueueEventsOptions {
  /** Where Redis is: `{ host, port }`, or an Echo `Connection` to share. */
  readonly connection?: ConnectionOptions;
  /** Listen at once (default) or on `run()`. */
  readonly autorun?: boolean;
  /** BullMQ's key prefix (see `QueueOptions.prefix`). */
  readonly prefix?: string;
  /**
   * BullMQ's bound on one blocking read of its event stream, ms. Events arrive by subscription
   * here, so there is no read to bound; accepted (a positive number) so BullMQ set-ups run as written.
   */
  readonly blockingTimeout?: number;
  /** See `QueueOptions.sharedConnection`. */
  readonly sharedConnection?: boolean;
}

/** The events and their payloads, as BullMQ documents them; the second argument is the event's id. */
export interface QueueEventsListener {
  /** A worker took the job. */
  active(args: { jobId: string; prev?: string }, id: string): void;
  /** The job waits for a worker. */
  waiting(args: { jobId: string; prev?: string }, id: string): void;
  /** The job waits until `delay` (epoch ms). */
  delayed(args: { jobId: string; delay: number }, id: string): void;
  /** The job reported progress. */
  progress(args: { jobId: string; data: unknown }, id: string): void;
  /** The job completed with `returnvalue`. */
  completed(args: { jobId: string; returnvalue: unknown; prev?: string }, id: string): void;
  /** The job failed for good with `failedReason`. */
  failed(args: { jobId: string; failedReason: string; prev?: string }, id: string): void;
  /** The job was removed. */
  removed(args: { jobId: string; prev: string }, id: string): void;
  /** The job's lock lapsed and it was taken back. */
  stalled(args: { jobId: string }, id: string): void;
  /** An add was dropped: `deduplicatedJobId` was refused, `jobId` holds `deduplicationId`. */
  deduplicated(args: { jobId: string; deduplicationId: string; deduplicatedJobId: string }, id: string): void;
  /** A job was added (`name` is its name); it is then `waiting` or `delayed`. */
  added(args: { jobId: string; name: string }, id: string): void;
  /** An add named a `jobId` that a job already holds: nothing was added. */
  duplicated(args: { jobId: string }, id: string): void;
  /** The job failed its last attempt. */
  'retries-exhausted'(args: { jobId: string; attemptsMade: string }, id: string): void;
  /** `queue.clean` removed `count` jobs. */
  cleaned(args: { count: string }, id: string): void;
  /** `queue.pause()` paused the queue. */
  paused(args: Record<string, never>, id: string): void;
  /** `queue.resume()` resumed the queue. */
  resumed(args: Record<string, never>, id: string): void;
  /** The last waiting job was taken. */
  drained(id: string): void;
  /** The listener failed. */
  error(error: Error): void;
  /** The listener closed. */
  closed(): void;
}

const checkOptions = strictOptions('QueueEvents options', {
  known: ['connection', 'autorun', 'prefix', 'blockingTimeout', 'sharedConnection'],
  hints: {
    lastEventId: 'the events channel is at most once; replay missed events through the journal of @echo/queue (queue.journal({ from }))',
  },
});

/** Echo's events after which BullMQ may report the queue drained (a job left the active set). */
const FINISHING = new Set<string>(['drained', 'completed', 'failed', 'removed', 'stalled']);
/** BullMQ's `prev` of a `removed` event, by the Echo state the job was removed from (the event's `state`). */
const REMOVED_FROM: Readonly<Record<string, string>> = { pending: 'wait', scheduled: 'delayed', active: 'active', completed: 'completed', dead: 'failed', awaiting_children: 'waiting-children' };

/** BullMQ's events translated from an Echo event of another name. */
const ALSO: Readonly<Record<string, readonly string[]>> = {
  waiting: ['added'],
  delayed: ['added'],
  failed: ['retries-exhausted'],
  deduplicated: ['duplicated'],
  unknown: ['cleaned', 'paused', 'resumed'],
};

/**
 * BullMQ's `QueueEvents`: the queue's lifecycle events, with BullMQ's names and payloads. `jobId`
 * is the application's id (remembered from what this process added or ran, else read from the
 * job's row when first seen; a job from elsewhere deleted on completion before any other event of
 * it was seen reports Echo's id). Listening to `waiting`, `active` or
 * `drained` turns those events on for the queue: Echo publishes them only on request.
 */
export class QueueEvents extends EventEmitter {
  /** The queue's name. */
  readonly name: string;
  readonly #open: Promise<EchoQueue<Envelope>>;
  readonly #ready: Promise<{ queue: EchoQueue<Envelope>; events: EchoQueueEvents }>;
  readonly #ids = new Map<string, string>();
  #chain: Promise<void> = Promise.resolve();
  /** Echo said the last waiting job was taken: BullMQ's `drained` waits for the last to finish. */
  #draining = false;
  #seq = 0;
  #running = false;
  #start: (() => void) | undefined;
  #stopped: (() => void) | undefined;

  constructor(name: string, opts: QueueEventsOptions = {}) {
    super();
    checkOptions(definedOnly(opts));
    const { blockingTimeout } = opts;
    if (blockingTimeout !== undefined && (typeof blockingTimeout !== 'number' || !(blockingTimeout > 0))) throw new InvalidArgumentError('blockingTimeout', 'must be a number of ms > 0');
    const echoName = echoQueueName(name, opts.prefix);
    this.name = name;
    // With autorun: false the subscription waits for run(), as BullMQ's stream reader does.
    const started = opts.autorun === false ? new Promise<void>((resolve) => (this.#start = resolve)) : Promise.resolve();
    // The connection opens at once, as BullMQ's does; the subscription waits for the start.
    const opening = EchoQueue.open<Envelope>(echoName, echoConnection(opts.connection));
    opening.catch(() => undefined);
    this.#open = opening;
    this.#ready = (async () => {
      const queue = await opening;
      await started;
      try {
        // Named as BullMQ names it, so queue.getQueueEvents() finds it.
        const events = await queue.events({ connectionName: queueEventsClientName(opts.prefix ?? DEFAULT_PREFIX, name) });
        events.on('*', (event) => this.#enqueue(event));
        // BullMQ's listeners hear waiting, active and drained from the first job on: Echo publishes
        // them only on request, so a listening QueueEvents asks before it reports itself ready.
        await queue.setEvents({ chatty: true });
        return { queue, events };
      } catch (error) {
        await queue.close();
        throw error;
      }
    })();
    this.#ready.catch((error: unknown) => this.#emitError(error));
    if (opts.autorun !== false) this.#running = true;
  }

  /** Starts listening (with `autorun: false`); resolves when the listener closes. */
  async run(): Promise<void> {
    if (this.#running) throw new BullMQInputError('run', 'Queue Events is already running.');
    this.#running = true;
    this.#start?.();
    await this.#ready;
    await new Promise<void>((resolve) => (this.#stopped = resolve));
  }

  /** True once listening (at once, or after `run()`). */
  isRunning(): boolean {
    return this.#running;
  }

  /**
   * Resolves once subscribed: an event published after this is received. Before `run()` (with
   * `autorun: false`), once the connection is open.
   */
  async waitUntilReady(): Promise<void> {
    if (!this.#running) {
      await this.#open;
      return;
    }
    await this.#ready;
  }

  /** @internal The Echo listener underneath (for `job.waitUntilFinished`). */
  async echoEvents(): Promise<EchoQueueEvents> {
    return (await this.#ready).events;
  }

  /** Stops listening and closes the connection. */
  async close(): Promise<void> {
    // A listener never started has nothing open: release the start so #ready settles.
    if (!this.#running) {
      this.#running = true;
      this.#start?.();
    }
    const ready = await this.#ready.catch(() => undefined);
    if (ready) {
      await ready.events.close();
      await ready.queue.close();
    }
    this.#running = false;
    this.#stopped?.();
    this.emit('closed');
  }

  /** Listens to `event`, with BullMQ's arguments. */
  override on<K extends keyof QueueEventsListener>(event: K, listener: QueueEventsListener[K]): this {
    return super.on(event, listener);
  }

  /** Listens to the next `event`. */
  override once<K extends keyof QueueEventsListener>(event: K, listener: QueueEventsListener[K]): this {
    return super.once(event, listener);
  }

  /** Stops listening. */
  override off<K extends keyof QueueEventsListener>(event: K, listener: QueueEventsListener[K]): this {
    return super.off(event, listener);
  }

  /** Events are translated in arrival order, even when one needs a row read for its job's id. */
  #enqueue(event: LifecycleEvent): void {
    this.#chain = this.#chain.then(() => this.#translate(event)).catch((error: unknown) => this.#emitError(error));
  }

  async #translate(event: LifecycleEvent): Promise<void> {
    if (event.event === 'drained') this.#draining = true;
    if (this.#draining && this.listenerCount('drained') > 0 && FINISHING.has(event.event)) await this.#drainedWhenIdle();
    const custom = event.event === 'unknown' && event.fields.name === CUSTOM_EVENT ? event.fields.custom : undefined;
    const heard = [event.event, ...(ALSO[event.event] ?? []), ...(custom === undefined ? [] : [custom])].some((name) => this.listenerCount(name) > 0);
    if (!heard && !(event.event === 'stalled' && this.listenerCount('failed') > 0)) return;
    const id = this.#nextId();
    if (event.event === 'drained') return;
    const f = event.fields;
    if (event.event === 'unknown') {
      // The drop-in's own events (clean's `cleaned`, pause's `paused`, resume's `resumed`) ride the channel beside Echo's.
      if (f.name === 'cleaned') this.emit('cleaned', { count: f.count ?? '0' }, id);
      else if (f.name === 'paused' || f.name === 'resumed') this.emit(f.name, {}, id);
      // An application's own event, from a QueueEventsProducer.
      else if (custom !== undefined) this.emit(custom, JSON.parse(f.args ?? '{}') as Record<string, string>, id);
      return;
    }
    const { queue } = await this.#ready;
    const jobId = await this.#jobId(queue, event.job);
    if ((event.event === 'waiting' || event.event === 'delayed') && this.listenerCount('added') > 0) await this.#added(queue, event.job, jobId, id, event.event === 'waiting');
    switch (event.event) {
      case 'waiting':
        this.emit('waiting', { jobId }, id);
        return;
      case 'active':
        this.emit('active', { jobId, prev: 'waiting' }, id);
        return;
      case 'delayed':
        this.emit('delayed', { jobId, delay: f.runAt !== undefined ? Number(f.runAt) : Date.now() + Number(f.delayMs ?? 0) }, id);
        return;
      case 'progress':
        this.emit('progress', { jobId, data: bullmqProgress(progressValue(event)) }, id);
        return;
      case 'completed':
        this.#ids.delete(event.job);
        // BullMQ stores a processor's undefined as JSON: its listeners read null.
        this.emit('completed', { jobId, returnvalue: resultValue(event) ?? null, prev: 'active' }, id);
        return;
      case 'failed': {
        // Echo reports every failed attempt; BullMQ's event is the final one.
        if (f.outcome !== 'dead') return;
        // The sweep's failure of a job that stalled past its limit follows its `stalled` event,
        // which already reported it as `failed` with BullMQ's text (only the sweep sets `error`).
        if (f.error === 'stalled') return;
        this.#ids.delete(event.job);
        const record = await queue.getJob(event.job);
        const envelope = record === undefined ? undefined : openEnvelope(record.payload);
        this.emit('failed', { jobId, failedReason: envelope === undefined ? '' : failedReasonOf(queue.name, envelope, record?.lastError ?? ''), prev: 'active' }, id);
        // BullMQ tells a failure of the last attempt apart from an unrecoverable one.
        const attempts = envelope === undefined ? undefined : (envelope.o?.attempts ?? 1);
        if (record !== undefined && attempts !== undefined && record.attempts >= attempts) this.emit('retries-exhausted', { jobId, attemptsMade: String(record.attempts) }, id);
        return;
      }
      case 'removed':
        this.#ids.delete(event.job);
        this.emit('removed', { jobId, prev: REMOVED_FROM[f.state ?? ''] ?? 'unknown' }, id);
        return;
      case 'stalled':
        this.emit('stalled', { jobId }, id);
        // A job that stalled past its limit fails for good, and BullMQ reports that as `failed` too.
        if (f.outcome !== 'dead') return;
        this.#ids.delete(event.job);
        this.emit('failed', { jobId, failedReason: STALLED_REASON, prev: 'active' }, id);
        return;
      case 'deduplicated':
        // A jobId is a business key here, refused the same way: BullMQ calls that `duplicated`.
        if (f.dedup !== undefined && f.dedup === keyOfJobId(jobId)) this.emit('duplicated', { jobId }, id);
        else this.emit('deduplicated', { jobId, deduplicationId: f.dedup ?? '', deduplicatedJobId: f.refused ?? '' }, id);
        return;
      default:
        return;
    }
  }

  #nextId(): string {
    return `${String(Date.now())}-${String(this.#seq++)}`;
  }

  /**
   * BullMQ's `drained`: a job finished and none waits or runs. Echo's own `drained` (the last waiting
   * job was taken) arms it; an end after that with nothing left waiting or running fires it once.
   */
  async #drainedWhenIdle(): Promise<void> {
    const { queue } = await this.#ready;
    const counts = await queue.counts('pending', 'active');
    if (counts.pending > 0 || counts.active > 0) return;
    this.#draining = false;
    this.emit('drained', this.#nextId());
  }

  /**
   * BullMQ's `added` for a job that entered wait or delayed for the first time. The row is read
   * after the event, so a waiting job a worker took meanwhile has one attempt: one attempt, not
   * waiting again, with no failure or stall yet, is still its first entry.
   */
  async #added(queue: EchoQueue<Envelope>, echoId: string, jobId: string, id: string, waiting: boolean): Promise<void> {
    const record = await queue.getJob(echoId).catch(() => undefined);
    if (record === undefined) return;
    const taken = waiting && record.attempts === 1 && record.state !== 'pending' && record.state !== 'scheduled' && record.lastError === undefined && record.stalled === 0;
    if (record.attempts > 0 && !taken) return;
    this.emit('added', { jobId, name: openEnvelope(record.payload).n }, id);
  }

  async #jobId(queue: EchoQueue<Envelope>, echoId: string): Promise<string> {
    const known = this.#ids.get(echoId) ?? rememberedJobId(echoId);
    if (known !== undefined) return known;
    const record = await queue.getJob(echoId).catch(() => undefined);
    const payload = record?.payload;
    const mapped = typeof payload === 'object' && typeof payload.i === 'string' ? payload.i : echoId;
    if (this.#ids.size > 10_000) this.#ids.clear();
    this.#ids.set(echoId, mapped);
    return mapped;
  }

  #emitError(error: unknown): void {
    const err = error instanceof Error ? error : new Error(String(error));
    if (this.listenerCount('error') > 0) this.emit('error', err);
    else console.warn(`[@echo/bullmq] queue events ${this.name}: ${err.name}: ${err.message}`);
  }
}

/** A boolean progress travels as its JSON text (Echo's progress has no boolean): read back as the boolean. */
function bullmqProgress(data: unknown): unknown {
  return data === 'true' ? true : data === 'false' ? false : data;
}
