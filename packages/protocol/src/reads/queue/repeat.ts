import { MalformedReplyError } from '../../errors/wire.js';
import type { QueueKeys } from '../../keys/queue-keys.js';
import { read, type Read } from '../read.js';
import { fieldsOf, integer, list, optionalText, texts } from '../../reply-shapes.js';
import { scored } from './replies.js';

/** The queue a repeat read is about. */
export interface RepeatInput {
  /** The queue's keys, from `queueKeys`. */
  readonly keys: QueueKeys;
}

/** `ZRANGE repeat 0 -1`: every repeat (and scheduler) name, soonest first. */
export function repeatNames(input: RepeatInput): Read<string[]> {
  return read('ZRANGE', [input.keys.repeat, 0, -1], (reply) => texts('ZRANGE', reply));
}

/** `ZCARD repeat`: how many repeats (and schedulers) are registered. */
export function repeatCount(input: RepeatInput): Read<number> {
  return read('ZCARD', [input.keys.repeat], (reply) => integer('ZCARD', reply));
}

/** One registered name and when it next runs. */
export interface RepeatDue {
  /** The repeat (or scheduler) name. */
  readonly name: string;
  /** The next occurrence, server epoch ms. */
  readonly next: number;
}

/** `ZRANGE repeat 0 -1 WITHSCORES`: every name with its next run, soonest first. */
export function repeatSchedule(input: RepeatInput): Read<RepeatDue[]> {
  return read('ZRANGE', [input.keys.repeat, 0, -1, 'WITHSCORES'], (reply) => scored('ZRANGE', reply).map(([name, next]) => ({ name, next })));
}

/**
 * A scheduler's record `repeat:<name>` as `scheduler_upsert` and `repeat_register` write it and
 * `scheduler_fire` keeps it: its cadence (`every_ms`, or `cron` with its `tz`), its window and limit,
 * what it has fired, and the payload template. Times are server epoch ms.
 */
export interface SchedulerRecord {
  /** The interval, for an interval scheduler. */
  readonly everyMs: number | undefined;
  /** The cron pattern, for a cron scheduler. */
  readonly cron: string | undefined;
  /** The time zone the cron pattern is read in, when one was given. */
  readonly tz: string | undefined;
  /** Occurrences fired so far. */
  readonly count: number;
  /** When the last occurrence fired, `undefined` before the first. */
  readonly lastRunAt: number | undefined;
  /** The id of the job the last occurrence enqueued. */
  readonly lastJob: string | undefined;
  /** At most this many occurrences. */
  readonly limit: number | undefined;
  /** No occurrence before this. */
  readonly startAt: number | undefined;
  /** No occurrence after this. */
  readonly endAt: number | undefined;
  /** The payload template, as encoded by the producer's codec. */
  readonly template: string;
}

function optionalNumber(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Reads a scheduler record; `undefined` when it has no template (gone, or half-written by a
 * newer writer). A numeric field that does not read as a number reads as absent.
 */
export function parseSchedulerRecord(fields: Readonly<Record<string, string>>): SchedulerRecord | undefined {
  if (fields.template === undefined) return undefined;
  return {
    everyMs: optionalNumber(fields.every_ms),
    cron: fields.cron,
    tz: fields.tz,
    count: optionalNumber(fields.count) ?? 0,
    lastRunAt: optionalNumber(fields.last_ms),
    lastJob: fields.last_job,
    limit: optionalNumber(fields.limit),
    startAt: optionalNumber(fields.start_ms),
    endAt: optionalNumber(fields.end_ms),
    template: fields.template,
  };
}

/** `HGETALL repeat:<name>`: a scheduler's record, `undefined` when it is gone. */
export function scheduler(input: RepeatInput & { readonly name: string }): Read<SchedulerRecord | undefined> {
  return read('HGETALL', [input.keys.repeatRecord(input.name)], (reply) => parseSchedulerRecord(fieldsOf('HGETALL', reply)));
}

/** A cron scheduler's cadence; both `undefined` for an interval scheduler (or one that is gone). */
export interface CronCadence {
  /** The cron pattern. */
  readonly cron: string | undefined;
  /** The time zone it is read in. */
  readonly tz: string | undefined;
}

/** `HMGET repeat:<name> cron tz`: what the host needs to compute a cron scheduler's next run. */
export function cronCadence(input: RepeatInput & { readonly name: string }): Read<CronCadence> {
  return read('HMGET', [input.keys.repeatRecord(input.name), 'cron', 'tz'], (reply) => {
    const slots = list('HMGET', reply);
    if (slots.length !== 2) throw new MalformedReplyError('HMGET', reply, 'not 2 values');
    return { cron: optionalText('HMGET', reply, slots[0]), tz: optionalText('HMGET', reply, slots[1]) };
  });
}
