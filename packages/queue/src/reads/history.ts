import { assertBrandedId, InvalidArgumentError, reads, type AttemptRecord } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { ifRowExists, settledValue } from './settled.js';

/**
 * A job's attempt history [TS], oldest first, as the queue's claims and settlements recorded it when
 * `setEvents({ history })` is on: an empty list when it is off (or was, while the job ran).
 * @throws GoneError when the job's row is gone; MalformedIdError for a malformed id.
 */
export async function getAttempts<T>(ctx: QueueContext<T>, id: string): Promise<AttemptRecord[]> {
  assertBrandedId(id);
  const job = { keys: ctx.keys, id };
  const [exists, records] = await reads.sendReads(ctx.conn, [reads.queue.jobExists(job), reads.queue.jobAttempts(job)]);
  return ifRowExists(exists, records);
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
  const { keys } = ctx;
  const [time, done, failed] = await reads.sendReads(ctx.conn, [
    reads.queue.time(),
    reads.queue.minuteCounts({ keys, which: 'completed' }),
    reads.queue.minuteCounts({ keys, which: 'failed' }),
  ]);
  const now = Math.floor(settledValue(time) / 60_000);
  const c = settledValue(done);
  const f = settledValue(failed);
  const out: MinuteCount[] = [];
  for (let m = now - minutes + 1; m <= now; m++) out.push({ at: m * 60_000, completed: c.get(m) ?? 0, failed: f.get(m) ?? 0 });
  return out;
}
