import type { Queue as EchoQueue } from '@echo/queue';
import { makeEnvelope, type Envelope } from '../envelope.js';
import { BullMQInputError } from '../errors.js';
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
async function removeWaiting(queue: EchoQueue<Envelope>, jobId: string): Promise<boolean> {
  const record = await queue.getJobByKey(keyOfJobId(jobId));
  if (record === undefined || (record.state !== 'pending' && record.state !== 'scheduled')) return false;
  return queue.remove(record.id).then(() => true, () => false);
}

/** Adds the job of run `millis`: waiting when due, else delayed until then (on the client's clock, as BullMQ). */
async function addIteration(queue: EchoQueue<Envelope>, id: string, record: SchedulerRecord, millis: number): Promise<{ envelope: Envelope; echoId: string }> {
  const jobId = iterationJobId(id, millis);
  const delay = Math.max(0, millis - Date.now());
  const opts: JobsOptions = { ...record.opts, ...(delay > 0 ? { delay } : {}) };
  const envelope: Envelope = { ...makeEnvelope(record.name, record.data ?? {}, opts, jobId), r: id };
  const { delayMs: _delayMs, ...admission } = enqueueOptions(opts, jobId);
  const result = await queue.enqueue(envelope, { ...admission, ...(delay > 0 ? { runAt: millis } : {}) });
  return { envelope, echoId: result.status === 'duplicate' ? result.existingId : result.id };
}

/** What `upsertJobScheduler` is given. */
export interface UpsertInput {
  readonly id: string;
  readonly repeat: RepeatOptions;
  readonly name: string;
  readonly data: unknown;
  readonly opts: JobsOptions;
  readonly strategy: RepeatStrategy | undefined;
}

/**
 * BullMQ's `upsertJobScheduler`: stores the scheduler and makes the job of its next run, replacing
 * the waiting or delayed job of the run before (the same run for an unchanged `every`). Answers the
 * job made, or undefined when the scheduler has no run left (its `limit` reached, no next match).
 */
export async function upsertScheduler(queue: EchoQueue<Envelope>, input: UpsertInput): Promise<{ envelope: Envelope; echoId: string } | undefined> {
  const { id, repeat, name } = input;
  const now = Date.now();
  const endDate = epochOf(repeat.endDate);
  const startDate = epochOf(repeat.startDate);
  if (endDate !== undefined && now > endDate) throw new BullMQInputError('repeat.endDate', 'End date must be greater than current timestamp');
  const existing = await readScheduler(queue, id);
  const prev = existing?.next;
  const removedPrev = prev === undefined ? false : await removeWaiting(queue, iterationJobId(id, prev));
  let next: number | undefined;
  let offset: number | undefined = repeat.offset;
  if (repeat.every !== undefined) {
    const same = existing?.every === repeat.every;
    const computed = nextEvery(same ? prev : undefined, repeat.every, now, repeat.offset ?? existing?.offset, startDate);
    next = removedPrev && same && prev !== undefined ? prev : computed.next;
    offset = computed.offset;
  } else {
    const found = (input.strategy ?? defaultRepeatStrategy)(now, repeat, name);
    next = found === undefined ? undefined : Math.max(found, now);
  }
  const ic = existing?.ic ?? 1;
  if (next === undefined || (repeat.limit !== undefined && ic > repeat.limit)) return undefined;
  const record: SchedulerRecord = {
    name,
    ...(repeat.every === undefined ? {} : { every: repeat.every }),
    ...(repeat.pattern === undefined ? {} : { pattern: repeat.pattern }),
    ...(repeat.tz === undefined ? {} : { tz: repeat.tz }),
    offset: offset ?? 0,
    ...(repeat.limit === undefined ? {} : { limit: repeat.limit }),
    ...(startDate === undefined ? {} : { startDate }),
    ...(endDate === undefined ? {} : { endDate }),
    ic,
    next,
    data: input.data,
    ...(Object.keys(input.opts).length === 0 ? {} : { opts: input.opts }),
  };
  // The job goes in first: a scheduler record never names a run whose job was not made.
  const made = await addIteration(queue, id, record, next);
  await writeScheduler(queue, id, record);
  return made;
}

/**
 * The run after a scheduler's job started, made as BullMQ makes it (when the job of the run before
 * becomes active). Only the job of the run the scheduler is at moves it on; a scheduler past its
 * limit or end date makes nothing more.
 */
export async function advanceScheduler(queue: EchoQueue<Envelope>, envelope: Envelope, strategy: RepeatStrategy | undefined): Promise<void> {
  const id = envelope.r;
  if (id === undefined || envelope.i === undefined) return;
  const millis = Number(envelope.i.slice(envelope.i.lastIndexOf(':') + 1));
  const record = await readScheduler(queue, id);
  if (record?.next !== millis) return;
  if (record.limit !== undefined && record.ic >= record.limit) return;
  const now = Date.now();
  const next = record.every !== undefined
    ? nextEvery(millis, record.every, now, record.offset, undefined).next
    : (strategy ?? defaultRepeatStrategy)(millis, repeatOf(record), record.name);
  if (next === undefined || (record.endDate !== undefined && next > record.endDate)) return;
  const moved: SchedulerRecord = { ...record, ic: record.ic + 1, next };
  await addIteration(queue, id, moved, next);
  await writeScheduler(queue, id, moved);
}

/** Removes a scheduler and the waiting or delayed job of its next run; answers whether it existed. */
export async function removeScheduler(queue: EchoQueue<Envelope>, id: string): Promise<boolean> {
  const record = await readScheduler(queue, id);
  if (record === undefined) return false;
  await queue.connection.command('HDEL', schedulersKey(queue.name), id);
  await removeWaiting(queue, iterationJobId(id, record.next));
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
