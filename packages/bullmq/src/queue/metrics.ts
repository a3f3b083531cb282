import { InvalidArgumentError, queueKeys } from '@echo/protocol/queue';
import type { Queue as EchoQueue } from '@echo/queue';
import type { Envelope } from '../envelope.js';

/** BullMQ's spans for `metrics.maxDataPoints`, in minutes (one data point per minute). */
export const MetricsTime = {
  ONE_MINUTE: 1,
  FIVE_MINUTES: 5,
  FIFTEEN_MINUTES: 15,
  THIRTY_MINUTES: 30,
  ONE_HOUR: 60,
  ONE_WEEK: 60 * 24 * 7,
  TWO_WEEKS: 60 * 24 * 7 * 2,
  ONE_MONTH: 60 * 24 * 7 * 2 * 4,
} as const;

/** `getMetrics`'s answer, as BullMQ shapes it. */
export interface Metrics {
  /** `count`: every job counted so far; `prevTS`/`prevCount`: BullMQ's bookkeeping, 0 here. */
  readonly meta: { readonly count: number; readonly prevTS: number; readonly prevCount: number };
  /** Jobs per minute, newest minute first (the slice `start`..`end` asked for). */
  readonly data: number[];
  /** How many minutes the queue keeps (the length of the whole series). */
  readonly count: number;
}

/**
 * BullMQ's `getMetrics(type, start, end)` over Echo's counters: `meta.count` is the queue's running
 * count of completed (or failed) jobs, which Echo keeps always; the per-minute series comes from
 * Echo's minute counts when the queue keeps them (`setEvents({ minutes })` on `@echo/queue`), and is
 * empty otherwise. Echo counts minutes by the server's clock, BullMQ by the worker's.
 */
export async function readMetrics(queue: EchoQueue<Envelope>, type: 'completed' | 'failed', start = 0, end = -1): Promise<Metrics> {
  // Checked as a string: JavaScript callers are not held to the type.
  if ((type as string) !== 'completed' && (type as string) !== 'failed') throw new InvalidArgumentError('type', "must be 'completed' or 'failed'");
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) throw new InvalidArgumentError('start/end', 'must be integers');
  const [counter, kept] = await Promise.all([queue.getMetrics(type), keptMinutes(queue)]);
  const series = kept === 0 ? [] : (await queue.getMinutes(kept)).map((minute) => minute[type]).reverse();
  const from = start < 0 ? Math.max(series.length + start, 0) : start;
  const to = end < 0 ? series.length + end : Math.min(end, series.length - 1);
  return { meta: { count: counter.count, prevTS: 0, prevCount: 0 }, data: series.slice(from, to + 1), count: series.length };
}

/** How many minutes of counts the queue keeps: the `minutes` setting `events_set` writes in meta (0: off). */
async function keptMinutes(queue: EchoQueue<Envelope>): Promise<number> {
  const raw = (await queue.connection.command('HGET', queueKeys(queue.name).meta, 'minutes')) as string | null;
  const minutes = Number(raw ?? 0);
  return Number.isSafeInteger(minutes) && minutes > 0 ? Math.min(minutes, 10080) : 0;
}

/** A label value escaped as the Prometheus text format asks: backslash, double quote, newline. */
function label(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/**
 * BullMQ's Prometheus text: a `bullmq_job_count` gauge per state in `counts`, then the
 * `bullmq_job_completed_total` and `bullmq_job_failed_total` counters, each labelled with the queue
 * and with `globals` (escaped).
 */
export function prometheusText(queueName: string, counts: Readonly<Record<string, number>>, completed: number, failed: number, globals: Readonly<Record<string, string>> = {}): string {
  const queue = label(queueName);
  const extra = Object.entries(globals).map(([name, value]) => `, ${name}="${label(value)}"`).join('');
  const lines = ['# HELP bullmq_job_count Number of jobs in the queue by state', '# TYPE bullmq_job_count gauge'];
  for (const [state, count] of Object.entries(counts)) lines.push(`bullmq_job_count{queue="${queue}", state="${state}"${extra}} ${String(count)}`);
  lines.push('# HELP bullmq_job_completed_total Total number of completed jobs', '# TYPE bullmq_job_completed_total counter');
  lines.push(`bullmq_job_completed_total{queue="${queue}"${extra}} ${String(completed)}`);
  lines.push('# HELP bullmq_job_failed_total Total number of failed jobs', '# TYPE bullmq_job_failed_total counter');
  lines.push(`bullmq_job_failed_total{queue="${queue}"${extra}} ${String(failed)}`);
  return lines.join('\n');
}
