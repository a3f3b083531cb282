import { InvalidNameError } from '../errors/validation.js';
import type { NameKind } from '../errors/validation.js';
import { describeValue } from '../ids/describe-value.js';

/**
 * Every name shares one charset (protocol.md §1). It has no `{`, `}` or `:`, which is what keeps the
 * hashtag extraction and the suffix split of a key unambiguous.
 */
const CHARSET = /^[A-Za-z0-9._-]+$/;

/** The longest queue name. */
export const MAX_QUEUE_NAME = 128;
/** The longest dedup id. */
export const MAX_DEDUP_ID = 255;
/** The longest repeat name. */
export const MAX_REPEAT_NAME = 255;
/** The longest stream name. */
export const MAX_STREAM_NAME = 128;
/** The longest cache table name; 120 so that `ecc.coh.<table>` is still a valid queue name. */
export const MAX_CACHE_TABLE = 120;

/** The one queue name refused beyond the charset: `emq` is the reserve's hashtag (protocol.md §3.3). */
const RESERVED_QUEUE = 'emq';

/** Why `value` breaks the name grammar capped at `max` bytes, or `null` when it conforms. */
function nameDefect(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return `must be a string, got ${typeof value}`;
  if (value.length === 0 || value.length > max || !CHARSET.test(value)) return `must match ^[A-Za-z0-9._-]{1,${max}}$`;
  return null;
}

function check(kind: NameKind, value: unknown, max: number): void {
  const defect = nameDefect(value, max);
  if (defect !== null) throw new InvalidNameError(kind, describeValue(value), defect);
}

function queueDefect(value: unknown): string | null {
  return nameDefect(value, MAX_QUEUE_NAME) ?? (value === RESERVED_QUEUE ? 'must not be "emq", the reserve\'s hashtag' : null);
}

/** True when `value` is a valid queue name: `^[A-Za-z0-9._-]{1,128}$` and not `emq`. */
export function isQueueName(value: unknown): value is string {
  return queueDefect(value) === null;
}

/**
 * Checks a queue name before any key is built from it.
 *
 * @throws InvalidNameError (kind `queue`) when it breaks `^[A-Za-z0-9._-]{1,128}$` or is `emq`.
 */
export function assertQueueName(value: unknown): asserts value is string {
  const defect = queueDefect(value);
  if (defect !== null) throw new InvalidNameError('queue', describeValue(value), defect);
}

/** True when `value` is a valid dedup id: `^[A-Za-z0-9._-]{1,255}$`. */
export function isDedupId(value: unknown): value is string {
  return nameDefect(value, MAX_DEDUP_ID) === null;
}

/** @throws InvalidNameError (kind `dedup id`) unless `value` matches `^[A-Za-z0-9._-]{1,255}$`. */
export function assertDedupId(value: unknown): asserts value is string {
  check('dedup id', value, MAX_DEDUP_ID);
}

/** True when `value` is a valid repeat name: `^[A-Za-z0-9._-]{1,255}$`. */
export function isRepeatName(value: unknown): value is string {
  return nameDefect(value, MAX_REPEAT_NAME) === null;
}

/** @throws InvalidNameError (kind `repeat name`) unless `value` matches `^[A-Za-z0-9._-]{1,255}$`. */
export function assertRepeatName(value: unknown): asserts value is string {
  check('repeat name', value, MAX_REPEAT_NAME);
}

/** True when `value` is a valid stream name: `^[A-Za-z0-9._-]{1,128}$`. */
export function isStreamName(value: unknown): value is string {
  return nameDefect(value, MAX_STREAM_NAME) === null;
}

/** @throws InvalidNameError (kind `stream name`) unless `value` matches `^[A-Za-z0-9._-]{1,128}$`. */
export function assertStreamName(value: unknown): asserts value is string {
  check('stream name', value, MAX_STREAM_NAME);
}

/** True when `value` is a valid cache table name: `^[A-Za-z0-9._-]{1,120}$`. */
export function isCacheTable(value: unknown): value is string {
  return nameDefect(value, MAX_CACHE_TABLE) === null;
}

/** @throws InvalidNameError (kind `cache table`) unless `value` matches `^[A-Za-z0-9._-]{1,120}$`. */
export function assertCacheTable(value: unknown): asserts value is string {
  check('cache table', value, MAX_CACHE_TABLE);
}
