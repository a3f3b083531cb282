import { assertBrandedId, GoneError, InvalidArgumentError, parseAttempts, type AttemptRecord, type JobId } from '@echo/protocol';
import type { QueueContext } from '../context.js';

/**
 * A job's attempt history [TS], oldest first, as the queue's claims and settlements recorded it when
 * `setEvents({ history })` is on: an empty list when it is off (or was, while the job ran).
 * @throws GoneError when the job's row is gone; MalformedIdError for a malformed id.
 */
export async function getAttempts<T>(ctx: QueueContext<T>, id: string): Promise<AttemptRecord[]> {
  assertBrandedId(id);
  const jid = id as JobId;
  const [exists, records] = await ctx.conn.pipeline([
    ['EXISTS', ctx.keys.job(jid)],
    ['LRANGE', ctx.keys.jobSub(jid, 'attempts'), 0, -1],
  ]);
  if (!exists?.ok) throw exists?.error ?? new GoneError();
  if (exists.value === 0) throw new GoneError();
  if (!records?.ok) throw records?.error ?? new GoneError();
  return parseAttempts(records.value as string[]);
}

/** One minute of a queue's per-minute counts [TS]. */
export interface MinuteCount {
  /** The minute's start, epoch ms (server clock). */
  readonly at: number;
  /** Jobs completed in that minute. */
  readonly completed: number;
  /** Attempts that failed in that minute (retried or dead-lettered, stalled to death included). */
  readonly failed: number;
}

/**
 * The queue's completions and failed attempts per minute over the last `minutes` minutes (default
 * 60), oldest first, one entry per minute (zero where nothing happened), counted when
 * `setEvents({ minutes })` is on. Minutes are by the server's clock, read in the same round trip.
 * @throws InvalidArgumentError for a count outside 1..10080.
 */
export async function getMinutes<T>(ctx: QueueContext<T>, minutes = 60): Promise<MinuteCount[]> {
  if (!Number.isSafeInteger(minutes) || minutes < 1 || minutes > 10080) throw new InvalidArgumentError('minutes', 'must be an integer in 1..10080');
  const [time, done, failed] = await ctx.conn.pipeline([
    ['TIME'],
    ['HGETALL', ctx.keys.metricsCompleted],
    ['HGETALL', ctx.keys.metricsFailed],
  ]);
  for (const reply of [time, done, failed]) if (reply?.ok !== true) throw reply?.error ?? new GoneError();
  if (time?.ok !== true || done?.ok !== true || failed?.ok !== true) throw new GoneError();
  const [seconds] = time.value as [string, string];
  const now = Math.floor(Number(seconds) / 60);
  const perMinute = (reply: unknown): Map<number, number> => {
    const out = new Map<number, number>();
    const flat = Array.isArray(reply) ? (reply as string[]) : Object.entries(reply as Record<string, string>).flat();
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const match = /^m:(\d+)$/.exec(flat[i] ?? '');
      if (match?.[1] !== undefined) out.set(Number(match[1]), Number(flat[i + 1]));
    }
    return out;
  };
  const c = perMinute(done.value);
  const f = perMinute(failed.value);
  const out: MinuteCount[] = [];
  for (let m = now - minutes + 1; m <= now; m++) out.push({ at: m * 60_000, completed: c.get(m) ?? 0, failed: f.get(m) ?? 0 });
  return out;
}
