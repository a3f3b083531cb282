import type { BrandedId } from '../../ids/branded.js';
import type { QueueKeys } from '../../keys/queue-keys.js';
import { parseOutboxEntry, type OutboxEntry } from '../../formats/outbox-entry.js';
import { InvalidArgumentError } from '../../errors/validation.js';
import { read, type Read } from '../read.js';
import { counter, fieldsOf, texts } from '../../reply-shapes.js';

/** Which flow parent a read is about. */
export interface ParentInput {
  /** The queue's keys, from `queueKeys`. */
  readonly keys: QueueKeys;
  /** The parent job's id. */
  readonly parent: BrandedId;
}

/** `HGETALL job:<parent>:processed`: the results its completed children left, child id → result. */
export function childrenValues(input: ParentInput): Read<Record<string, string>> {
  return read('HGETALL', [input.keys.jobSub(input.parent, 'processed')], (reply) => fieldsOf('HGETALL', reply));
}

/** `HGETALL job:<parent>:unsuccessful`: the failures of children whose death it ignored, child id → error. */
export function ignoredFailures(input: ParentInput): Read<Record<string, string>> {
  return read('HGETALL', [input.keys.jobSub(input.parent, 'unsuccessful')], (reply) => fieldsOf('HGETALL', reply));
}

/** `GET job:<parent>:dependencies`: how many of its children are still open (an absent counter reads 0). */
export function openChildren(input: ParentInput): Read<number> {
  return read('GET', [input.keys.jobSub(input.parent, 'dependencies')], (reply) => counter('GET', reply));
}

/**
 * `LRANGE flow:outbox 0 count-1`: the oldest `count` cross-queue flow signals, in delivery order. An
 * entry that does not parse reads as `undefined`, in its place: it blocks the outbox until an
 * operator removes it, so the reader must see where it stands.
 */
export function flowOutbox(input: { readonly keys: QueueKeys; readonly count: number }): Read<(OutboxEntry | undefined)[]> {
  if (!Number.isSafeInteger(input.count) || input.count < 1) throw new InvalidArgumentError('count', `must be a positive integer, got ${String(input.count)}`);
  return read('LRANGE', [input.keys.flowOutbox, 0, input.count - 1], (reply) => texts('LRANGE', reply).map(parseOutboxEntry));
}
