import { parseAttempts, type AttemptRecord } from '../../attempts.js';
import { MalformedReplyError } from '../../errors/wire.js';
import type { BrandedId, JobId } from '../../ids/branded.js';
import type { QueueKeys } from '../../keys/queue-keys.js';
import { parseJobRow, type JobRow } from '../../records.js';
import { read, type Read } from '../read.js';
import { fieldsOf, flag, list, optionalText, texts } from '../../reply-shapes.js';
import { jobIdOf } from './replies.js';

/** Which job a read is about: the queue's keys and the job's id (checked when the key is built). */
export interface JobInput {
  /** The queue's keys, from `queueKeys`. */
  readonly keys: QueueKeys;
  /** The job's id; a malformed one is refused when the key is built (MalformedIdError). */
  readonly id: BrandedId;
}

/** `HGETALL job:<id>`: the job's row, typed; `undefined` when the row does not exist. */
export function job(input: JobInput): Read<JobRow | undefined> {
  return read('HGETALL', [input.keys.job(input.id)], (reply) => parseJobRow(fieldsOf('HGETALL', reply)));
}

/** `EXISTS job:<id>`: whether the job's row exists. */
export function jobExists(input: JobInput): Read<boolean> {
  return read('EXISTS', [input.keys.job(input.id)], (reply) => flag('EXISTS', reply));
}

/** `LRANGE job:<id>:logs 0 -1`: the job's log lines in append order (none for an absent log). */
export function jobLogs(input: JobInput): Read<string[]> {
  return read('LRANGE', [input.keys.jobSub(input.id, 'logs'), 0, -1], (reply) => texts('LRANGE', reply));
}

/** `LRANGE job:<id>:attempts 0 -1`: the job's attempt history [TS], oldest first. */
export function jobAttempts(input: JobInput): Read<AttemptRecord[]> {
  return read('LRANGE', [input.keys.jobSub(input.id, 'attempts'), 0, -1], (reply) => parseAttempts(texts('LRANGE', reply)));
}

/** The row fields a verdict is read from; each `undefined` when the row (or the field) is absent. */
export interface JobVerdict {
  /** The row's `state`, e.g. `completed` or `dead`. */
  readonly state: string | undefined;
  /** [TS] The handler's result on a retained completed row. */
  readonly result: string | undefined;
  /** The last failure's text. */
  readonly lastError: string | undefined;
}

/** Whose completion a row holds: its `state` and the token (`attempts`) it was last leased under. */
export interface JobToken {
  /** The row's `state`; `undefined` when the row is gone. */
  readonly state: string | undefined;
  /** The row's `attempts`, the token of its last lease; `undefined` when the row is gone. */
  readonly attempts: number | undefined;
}

/**
 * `HMGET job:<id> state attempts`: the row's state and last token, so a worker whose resend heard
 * `gone` can tell whether the completion that landed was its own.
 */
export function jobToken(input: JobInput): Read<JobToken> {
  return read('HMGET', [input.keys.job(input.id), 'state', 'attempts'], (reply) => {
    const slots = list('HMGET', reply);
    if (slots.length !== 2) throw new MalformedReplyError('HMGET', reply, 'not 2 values');
    const attempts = optionalText('HMGET', reply, slots[1]);
    const token = attempts === undefined ? undefined : Number(attempts);
    if (token !== undefined && !Number.isSafeInteger(token)) throw new MalformedReplyError('HMGET', reply, 'attempts is not an integer');
    return { state: optionalText('HMGET', reply, slots[0]), attempts: token };
  });
}

/** `HMGET job:<id> state result last_error`: what a waiter needs to tell a finished job. */
export function jobVerdict(input: JobInput): Read<JobVerdict> {
  return read('HMGET', [input.keys.job(input.id), 'state', 'result', 'last_error'], (reply) => {
    const slots = list('HMGET', reply);
    if (slots.length !== 3) throw new MalformedReplyError('HMGET', reply, 'not 3 values');
    return { state: optionalText('HMGET', reply, slots[0]), result: optionalText('HMGET', reply, slots[1]), lastError: optionalText('HMGET', reply, slots[2]) };
  });
}

/** `GET de:<dedupId>`: the job id parked under an idempotency key, `undefined` when none is. */
export function dedup(input: { readonly keys: QueueKeys; readonly dedupId: string }): Read<JobId | undefined> {
  return read('GET', [input.keys.dedup(input.dedupId)], (reply) => {
    const value = optionalText('GET', reply);
    if (value === undefined) return undefined;
    const id = jobIdOf(value);
    if (id === undefined) throw new MalformedReplyError('GET', reply, 'not a job id');
    return id;
  });
}

