import type { Queue as EchoQueue } from '@echo/queue';
import { makeEnvelope, openEnvelope, type Envelope } from '../envelope.js';
import { BullMQInputError, JobStateError } from '../errors.js';
import { keyOfJobId } from '../ids.js';
import { enqueueOptions, type JobsOptions, type RepeatOptions } from '../job-options.js';

import { epochOf } from './repeat-options.js';
import { defaultRepeatStrategy, nextEvery, type RepeatStrategy } from './next-millis.js';

/** A job scheduler as the drop-in keeps it: BullMQ's fields, and the run its next job is for. */
export interface SchedulerRecord {
  readonly name: string;
  readonly every?: number;
  readonly pattern?: string;
  readonly tz?: string;
  readonly offset?: number;
  readonly limit?: number;
  readonly startDate?: number;
  readonly endDate?: number;
  /** How many jobs it has made (BullMQ's `iterationCount`). */
  readonly ic: number;
  /** The run (epoch ms) its next job is for. */
  readonly next: number;
  readonly data?: unknown;
  readonly opts?: JobsOptions;
}

/**
 * The drop-in's own hash of the queue's job schedulers (id → record as JSON). BullMQ makes each run
 * a delayed job the moment the run before it starts; Echo's own schedulers fire at the due time
 * instead, so BullMQ's model is kept here, beside Echo's keyspace, with the queue's hash tag.
 */
export function schedulersKey(echoName: string): string {
  return `bullmq-echo:{${echoName}}:schedulers`;
}

/** BullMQ's id of the job a scheduler makes for run `millis`. */
export function iterationJobId(schedulerId: string, millis: number): string {
  return `repeat:${schedulerId}:${String(millis)}`;
}

/** One scheduler, or undefined. */
export async function readScheduler(queue: EchoQueue<Envelope>, id: string): Promise<SchedulerRecord | undefined> {
  const raw = (await queue.connection.command('HGET', schedulersKey(queue.name), id)) as string | null;
  return raw === null ? undefined : (JSON.parse(raw) as SchedulerRecord);
}

/** Every scheduler of the queue, by id. */
export async function readSchedulers(queue: EchoQueue<Envelope>): Promise<[string, SchedulerRecord][]> {
  const flat = (await queue.connection.command('HGETALL', schedulersKey(queue.name))) as string[] | Record<string, string>;
  const pairs: [string, string][] = Array.isArray(flat) ? flat.flatMap((v, i) => (i % 2 === 0 ? [[v, flat[i + 1] ?? '']] as [string, string][] : [])) : Object.entries(flat);
  return pairs.map(([id, raw]) => [id, JSON.parse(raw) as SchedulerRecord]);
}

async function writeScheduler(queue: EchoQueue<Envelope>, id: string, record: SchedulerRecord): Promise<void> {
  await queue.connection.command('HSET', schedulersKey(queue.name), id, JSON.stringify(record));
}

/** Removes a waiting or delayed job of a scheduler; answers whether it was there to remove. */
async function removeWaiting(queue: EchoQueue<Envelope>, jobId: string, states: readonly string[] = ['pending', 'scheduled']): Promise<boolean> {
  const record = await queue.getJobByKey(keyOfJobId(jobId));
  if (record === undefined || !states.includes(record.state)) return false;
  return queue.remove(record.id).then(() => true, () => false);
}

/**
 * Removes the job of the run an upsert replaces, where BullMQ's `addJobScheduler` finds it: delayed,
 * prioritized, or in the list the queue's state names. BullMQ 6 keeps every waiting job in `wait`,
 * paused or not, but looks for it in `paused` while the queue is paused: a paused queue's waiting job
 * without a priority stays (and runs once the queue resumes), and the upsert makes its next run beside it.
 */
async function removeReplaced(queue: EchoQueue<Envelope>, jobId: string): Promise<boolean> {
  const record = await queue.getJobByKey(keyOfJobId(jobId));
  if (record === undefined) return false;
  if (record.state === 'pending' && !(openEnvelope(record.payload).o?.priority ?? 0) && await queue.isPaused()) return false;
  return removeWaiting(queue, jobId);
}

/** BullMQ tries at most this many later `every` slots when the run's job id is taken. */
const MAX_SLOT_SCANS = 32;

/**
 * Adds the job of run `millis`: waiting when due, else delayed until then (on the client's clock,
 * as BullMQ). The job carries BullMQ's scheduler options (`repeat` with its `count`,
 * `repeatJobKey`, `prevMillis`). Answers undefined when a job with the run's id already exists.
 */
async function addIteration(queue: EchoQueue<Envelope>, id: string, record: SchedulerRecord, millis: number, now: number, delayed = false): Promise<{ envelope: Envelope; echoId: string } | undefined> {
  const jobId = iterationJobId(id, millis);
  // `delayed`: the job was delayed before and stays so, whatever the client's clock says now.
  const delay = Math.max(delayed ? 1 : 0, millis - now);
  const opts: JobsOptions = { ...record.opts, ...(delay > 0 ? { delay } : {}), timestamp: now };
  const made = makeEnvelope(record.name, record.data ?? {}, opts, jobId);
  const repeat = { ...repeatOf(record), count: record.ic };
  const envelope: Envelope = { ...made, r: id, o: { ...made.o, jobId, delay, repeat, repeatJobKey: id, prevMillis: millis } };
  const { delayMs: _delayMs, ...admission } = enqueueOptions(opts, jobId);
  const result = await queue.enqueue(envelope, { ...admission, ...(delay > 0 ? { runAt: millis } : {}) });
  return result.status === 'duplicate' ? undefined : { envelope, echoId: result.id };
}

/** What `upsertJobScheduler` is given. */
export interface UpsertInput {
  readonly id: string;
  readonly repeat: RepeatOptions;
  readonly name: string;
  readonly data: unknown;
  readonly opts: JobsOptions;
  readonly strategy: RepeatStrategy | undefined;
  /** BullMQ's `prevMillis` template option: no run is computed from before it. */
  readonly prevMillis?: number;
}

/** A template's data or options worth keeping: BullMQ keeps neither when it is empty. */
function kept<T>(value: T | undefined): T | undefined {
  return value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0) ? undefined : value;
}

/**
 * BullMQ's `upsertJobScheduler`: stores the scheduler and makes the job of its next run, replacing
 * the waiting or delayed job of the run before (the same run for an unchanged `every`). When the
 * run's job id is taken (the job of that run is active or finished), an `every` scheduler moves on
 * to the next free slot, a pattern one is refused with BullMQ's text. The iteration count carries
 * over. Answers the job made, or undefined when the scheduler has no run left.
 */
export async function upsertScheduler(queue: EchoQueue<Envelope>, input: UpsertInput): Promise<{ envelope: Envelope; echoId: string } | undefined> {
  const { id, repeat, name } = input;
  const clock = Date.now();
  const endDate = epochOf(repeat.endDate);
  const startDate = epochOf(repeat.startDate);
  if (endDate !== undefined && clock > endDate) throw new BullMQInputError('repeat.endDate', 'End date must be greater than current timestamp');
  if (repeat.limit !== undefined && repeat.limit < 1) return undefined;
  const now = Math.max(clock, input.prevMillis ?? 0);
  const existing = await readScheduler(queue, id);
  const prev = existing?.next;
  let next: number | undefined;
  let offset = repeat.every !== undefined && repeat.offset ? repeat.offset : 0;
  const updatedEvery = repeat.every !== undefined && existing !== undefined && existing.every !== repeat.every;
  if (repeat.every !== undefined) {
    const computed = nextEvery(updatedEvery ? undefined : prev, repeat.every, now, offset, startDate);
    next = computed.next;
    offset = computed.offset;
  } else {
    const found = (input.strategy ?? defaultRepeatStrategy)(now, repeat, name);
    next = found === undefined ? undefined : Math.max(found, now);
  }
  if (next === undefined) return undefined;
  const removedPrev = prev === undefined ? false : await removeReplaced(queue, iterationJobId(id, prev));
  // BullMQ keeps an unchanged `every` on the run it replaced, and its stored offset with it.
  if (removedPrev && repeat.every !== undefined && !updatedEvery && prev !== undefined) next = prev;
  const keptOffset = removedPrev && !(repeat.every !== undefined && repeat.offset) ? (existing?.offset ?? offset) : offset;
  const data = kept(input.data);
  const opts = kept(input.opts);
  for (let scans = 0; ; scans += 1) {
    const record: SchedulerRecord = {
      name,
      ...(repeat.every === undefined ? {} : { every: repeat.every }),
      ...(repeat.pattern === undefined ? {} : { pattern: repeat.pattern }),
      ...(repeat.tz === undefined ? {} : { tz: repeat.tz }),
      offset: keptOffset,
      ...(repeat.limit === undefined ? {} : { limit: repeat.limit }),
      ...(startDate === undefined ? {} : { startDate }),
      ...(endDate === undefined ? {} : { endDate }),
      ic: existing?.ic ?? 1,
      next,
      ...(data === undefined ? {} : { data }),
      ...(opts === undefined ? {} : { opts }),
    };
    // The job goes in first: a scheduler record never names a run whose job was not made.
    const made = await addIteration(queue, id, record, next, clock);
    if (made !== undefined) {
      await writeScheduler(queue, id, record);
      return made;
    }
    if (repeat.every === undefined) {
      // Two upserts at once compute the same run: the later answers the job the first made.
      const same = await queue.getJobByKey(keyOfJobId(iterationJobId(id, next)));
      if (same !== undefined && (same.state === 'pending' || same.state === 'scheduled')) {
        await writeScheduler(queue, id, record);
        return { envelope: same.payload, echoId: same.id };
      }
      throw new JobStateError(iterationJobId(id, next), 'addJobScheduler', 'Cannot create job scheduler iteration - job ID already exists. addJobScheduler');
    }
    if (scans + 1 >= MAX_SLOT_SCANS) {
      throw new JobStateError(iterationJobId(id, next), 'addJobScheduler', 'Cannot create job scheduler iteration - current and next time slots already have jobs. addJobScheduler');
    }
    next += repeat.every;
  }
}

/**
 * The run after a scheduler's job started, made as BullMQ makes it (when the job of the run before
 * becomes active). Only the job of the run the scheduler is at moves it on; a scheduler past its
 * limit or end date makes nothing more. A pattern's next run is computed from now, or from the run
 * before when that is later (BullMQ's `prevMillis`). Answers the job made, if any.
 */
export async function advanceScheduler(queue: EchoQueue<Envelope>, envelope: Envelope, strategy: RepeatStrategy | undefined): Promise<{ envelope: Envelope; echoId: string } | undefined> {
  const id = envelope.r;
  if (id === undefined || envelope.i === undefined) return undefined;
  const millis = Number(envelope.i.slice(envelope.i.lastIndexOf(':') + 1));
  const record = await readScheduler(queue, id);
  if (record?.next !== millis) return undefined;
  if (record.limit !== undefined && record.ic >= record.limit) return undefined;
  const now = Date.now();
  if (record.endDate !== undefined && now > record.endDate) return undefined;
  const next = record.every !== undefined
    ? nextEvery(millis, record.every, now, record.offset, undefined).next
    : (strategy ?? defaultRepeatStrategy)(Math.max(millis, now), repeatOf(record), record.name);
  if (next === undefined) return undefined;
  const moved: SchedulerRecord = { ...record, ic: record.ic + 1, next };
  const made = await addIteration(queue, id, moved, next, now);
  if (made === undefined) return undefined;
  await writeScheduler(queue, id, moved);
  return made;
}

/**
 * The ids of the jobs that are some scheduler's next run: BullMQ keeps those from `job.remove`,
 * `drain` and `clean` (only removing or upserting the scheduler replaces them).
 */
export async function schedulerJobIds(queue: EchoQueue<Envelope>): Promise<Set<string>> {
  return new Set((await readSchedulers(queue)).map(([id, record]) => iterationJobId(id, record.next)));
}

/** Whether the job is the next run of a scheduler that still exists. */
export async function isSchedulerJob(queue: EchoQueue<Envelope>, envelope: Envelope): Promise<boolean> {
  if (envelope.r === undefined || envelope.i === undefined) return false;
  const record = await readScheduler(queue, envelope.r);
  return record !== undefined && iterationJobId(envelope.r, record.next) === envelope.i;
}

/** The schedulers whose next job is delayed, before a drain (see {@link restoreSchedulerJobs}). */
export async function delayedSchedulerJobs(queue: EchoQueue<Envelope>): Promise<Set<string>> {
  const delayed = new Set<string>();
  for (const [id, record] of await readSchedulers(queue)) {
    if ((await queue.getJobByKey(keyOfJobId(iterationJobId(id, record.next))))?.state === 'scheduled') delayed.add(id);
  }
  return delayed;
}

/**
 * Makes again each scheduler's next job that a drain took (Echo's drain empties the sets whole;
 * BullMQ's leaves a scheduler's job in place), delayed if it was (`delayed`, read before the
 * drain). The record already names the run, so a job made here is the one the drain removed.
 */
export async function restoreSchedulerJobs(queue: EchoQueue<Envelope>, delayed: ReadonlySet<string>): Promise<void> {
  const now = Date.now();
  for (const [id, record] of await readSchedulers(queue)) {
    if ((await queue.getJobByKey(keyOfJobId(iterationJobId(id, record.next)))) === undefined) await addIteration(queue, id, record, record.next, now, delayed.has(id));
  }
}

/**
 * Removes a scheduler and the job of its next run while that job is delayed (BullMQ leaves a job
 * already promoted to wait, which then runs once); answers whether the scheduler existed.
 */
export async function removeScheduler(queue: EchoQueue<Envelope>, id: string): Promise<boolean> {
  const record = await readScheduler(queue, id);
  if (record === undefined) return false;
  await queue.connection.command('HDEL', schedulersKey(queue.name), id);
  await removeWaiting(queue, iterationJobId(id, record.next), ['scheduled']);
  return true;
}

/** A record's repeat options, as a strategy reads them. */
export function repeatOf(record: SchedulerRecord): RepeatOptions {
  return {
    ...(record.every === undefined ? {} : { every: record.every }),
    ...(record.pattern === undefined ? {} : { pattern: record.pattern }),
    ...(record.tz === undefined ? {} : { tz: record.tz }),
    ...(record.limit === undefined ? {} : { limit: record.limit }),
    ...(record.startDate === undefined ? {} : { startDate: record.startDate }),
    ...(record.endDate === undefined ? {} : { endDate: record.endDate }),
    ...(record.offset === undefined ? {} : { offset: record.offset }),
  };
}
