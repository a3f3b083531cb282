import { InvalidArgumentError } from '../../errors/validation.js';
import type { QueueKeys } from '../../keys/queue-keys.js';
import type { Metric } from '../../keys/registry.js';
import { read, type Read } from '../read.js';
import { counter, fieldsOf, integer } from '../../reply-shapes.js';

/** Which counter a metrics read is about. */
export interface MetricInput {
  /** The queue's keys, from `queueKeys`. */
  readonly keys: QueueKeys;
  /** `completed` or `failed`. */
  readonly which: Metric;
}

/** The counter's hash and its reserved data list. */
function keysOf(input: MetricInput): { readonly hash: string; readonly data: string } {
  // Checked as a value: plain JavaScript callers are not held to the type.
  const which: unknown = input.which;
  const k = input.keys;
  if (which === 'completed') return { hash: k.metricsCompleted, data: k.metricsCompletedData };
  if (which === 'failed') return { hash: k.metricsFailed, data: k.metricsFailedData };
  throw new InvalidArgumentError('which', `must be 'completed' or 'failed', got ${JSON.stringify(which)}`);
}

/** `HGET metrics:<which> count`: every completion (or failure) so far; 0 before the first. */
export function metricCount(input: MetricInput): Read<number> {
  return read('HGET', [keysOf(input).hash, 'count'], (reply) => counter('HGET', reply));
}

/** `LLEN metrics:<which>:data`: the reserved data series' length (the series is never written). */
export function metricPoints(input: MetricInput): Read<number> {
  return read('LLEN', [keysOf(input).data], (reply) => integer('LLEN', reply));
}

const MINUTE_FIELD = /^m:(\d+)$/;

/**
 * `HGETALL metrics:<which>`: the per-minute counts [TS] the scripts keep when the queue's `minutes`
 * setting is on, minute (epoch ms / 60000) → count. Other fields of the hash (`count`) are not minutes
 * and are left out.
 */
export function minuteCounts(input: MetricInput): Read<ReadonlyMap<number, number>> {
  return read('HGETALL', [keysOf(input).hash], (reply) => {
    const out = new Map<number, number>();
    for (const [field, value] of Object.entries(fieldsOf('HGETALL', reply))) {
      const minute = MINUTE_FIELD.exec(field)?.[1];
      if (minute !== undefined) out.set(Number(minute), counter('HGETALL', reply, value));
    }
    return out;
  });
}
