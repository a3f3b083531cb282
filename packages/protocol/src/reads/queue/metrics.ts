import { InvalidArgumentError } from '../../errors/validation.js';
import type { QueueKeys } from '../../keys/queue-keys.js';
import type { Metric } from '../../keys/registry.js';
import { read, type Read } from '../read.js';
import { counter, fieldsOf, integer } from './replies.js';

/** Which counter a metrics read is about. */
export interface MetricInput {
  readonly keys: QueueKeys;
  /** `completed` or `failed`. */
  readonly which: Metric;
}

function hashOf(input: MetricInput): string {
  if (input.which === 'completed') return input.keys.metricsCompleted;
  if (input.which === 'failed') return input.keys.metricsFailed;
  throw new InvalidArgumentError('which', `must be 'completed' or 'failed', got ${JSON.stringify(String(input.which))}`);
}

/** `HGET metrics:<which> count`: every completion (or failure) so far; 0 before the first. */
export function metricCount(input: MetricInput): Read<number> {
  return read('HGET', [hashOf(input), 'count'], (reply) => counter('HGET', reply));
}

/** `LLEN metrics:<which>:data`: the reserved data series' length (the series is never written). */
export function metricPoints(input: MetricInput): Read<number> {
  const key = hashOf(input) === input.keys.metricsCompleted ? input.keys.metricsCompletedData : input.keys.metricsFailedData;
  return read('LLEN', [key], (reply) => integer('LLEN', reply));
}

const MINUTE_FIELD = /^m:(\d+)$/;

/**
 * `HGETALL metrics:<which>`: the per-minute counts [TS] the scripts keep when the queue's `minutes`
 * setting is on, minute (epoch ms / 60000) → count. Other fields of the hash (`count`) are not minutes
 * and are left out.
 */
export function minuteCounts(input: MetricInput): Read<ReadonlyMap<number, number>> {
  return read('HGETALL', [hashOf(input)], (reply) => {
    const out = new Map<number, number>();
    for (const [field, value] of Object.entries(fieldsOf('HGETALL', reply))) {
      const minute = MINUTE_FIELD.exec(field)?.[1];
      if (minute !== undefined) out.set(Number(minute), counter('HGETALL', reply, value));
    }
    return out;
  });
}
