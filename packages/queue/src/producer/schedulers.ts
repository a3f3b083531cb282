import { Cron } from 'croner';
import { execute, InvalidArgumentError, mintId, reads, transitions as t } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { checkCadence, checkSchedulerOptions } from '../core/option-checks.js';

/** When a scheduler fires: every `everyMs` (first after `firstInMs`, default one cadence), or on a cron pattern. */
export type SchedulerCadence =
  | { readonly everyMs: number; readonly firstInMs?: number }
  | {
      /** A 5- to 7-field cron pattern (seconds and years optional), read by croner. */
      readonly cron: string;
      /** IANA time zone the pattern is read in (`Europe/Paris`); the process's own when omitted. */
      readonly tz?: string;
    };

/** A scheduler's window and run limit. */
export interface SchedulerOptions {
  /** No occurrence before this time. */
  readonly startAt?: Date | number;
  /** No occurrence after this time; the scheduler retires itself then. */
  readonly endAt?: Date | number;
  /** At most this many occurrences in all; the scheduler retires itself after the last. */
  readonly limit?: number;
}

/** A scheduler as stored. */
export interface SchedulerInfo<T> {
  readonly id: string;
  readonly everyMs: number | undefined;
  readonly cron: string | undefined;
  readonly tz: string | undefined;
  /** When the next occurrence is due. */
  readonly next: Date;
  /** Occurrences fired so far. */
  readonly count: number;
  /** [TS] When the last occurrence fired (server clock), `undefined` before the first. */
  readonly lastRunAt: Date | undefined;
  /** [TS] The id of the job the last occurrence enqueued. */
  readonly lastJob: string | undefined;
  readonly limit: number | undefined;
  readonly startAt: Date | undefined;
  readonly endAt: Date | undefined;
  readonly template: T;
}

function epoch(name: string, value: Date | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : value;
  if (!Number.isSafeInteger(ms) || ms < 0) throw new InvalidArgumentError(name, 'must be a valid Date or epoch ms');
  return ms;
}

function cronOf(pattern: string, tz: string | undefined): Cron {
  if (tz !== undefined) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
    } catch {
      throw new InvalidArgumentError('tz', `${tz} is not a known IANA time zone`);
    }
  }
  try {
    return new Cron(pattern, { paused: true, ...(tz === undefined ? {} : { timezone: tz }) });
  } catch (error) {
    throw new InvalidArgumentError('cron', (error as Error).message);
  }
}

/** The first cron match at or after `from` (croner answers strictly after, so step back a millisecond). */
function nextMatch(cron: Cron, from: number): number | undefined {
  return cron.nextRun(new Date(from - 1))?.getTime();
}

/**
 * Creates or updates scheduler `id` [TS]: an upsert, so a deploy may declare every scheduler on
 * start. An unchanged cadence keeps its next run; a changed one starts over. Each occurrence is
 * enqueued once however many worker processes run the pump.
 * @throws InvalidArgumentError for a bad cadence, pattern, time zone, window or limit.
 */
export async function upsertScheduler<T>(ctx: QueueContext<T>, id: string, cadence: SchedulerCadence, template: T, options: SchedulerOptions = {}): Promise<'created' | 'updated'> {
  checkCadence(cadence);
  checkSchedulerOptions(options);
  const startAt = epoch('startAt', options.startAt);
  const endAt = epoch('endAt', options.endAt);
  if (startAt !== undefined && endAt !== undefined && endAt < startAt) throw new InvalidArgumentError('endAt', 'must not be before startAt');
  const window = { ...(startAt === undefined ? {} : { startAt }), ...(endAt === undefined ? {} : { endAt }), ...(options.limit === undefined ? {} : { limit: options.limit }) };
  const base = { queue: ctx.name, name: id, template: ctx.codec.encode(template), ...window };
  if ('cron' in cadence) {
    const cron = cronOf(cadence.cron, cadence.tz);
    const first = nextMatch(cron, Math.max(Date.now(), startAt ?? 0));
    if (first === undefined) throw new InvalidArgumentError('cron', `${cadence.cron} has no future occurrence`);
    const tz = cadence.tz === undefined ? {} : { tz: cadence.tz };
    return execute(ctx.conn, t.schedulerUpsert({ ...base, cadence: { cron: cadence.cron, ...tz }, first: { at: first } }));
  }
  return execute(ctx.conn, t.schedulerUpsert({ ...base, cadence: { everyMs: cadence.everyMs }, first: { inMs: cadence.firstInMs ?? cadence.everyMs } }));
}

/** Every scheduler of the queue, soonest first. */
export async function getSchedulers<T>(ctx: QueueContext<T>): Promise<SchedulerInfo<T>[]> {
  const schedule = await reads.sendRead(ctx.conn, reads.queue.repeatSchedule({ keys: ctx.keys }));
  if (schedule.length === 0) return [];
  const records = await reads.sendReads(ctx.conn, schedule.map(({ name }) => reads.queue.scheduler({ keys: ctx.keys, name })));
  const out: SchedulerInfo<T>[] = [];
  const date = (ms: number | undefined): Date | undefined => (ms === undefined ? undefined : new Date(ms));
  schedule.forEach(({ name, next }, i) => {
    // A record gone (or unreadable) between the two reads is a scheduler no longer there.
    const settled = records[i];
    const r = settled?.ok === true ? settled.value : undefined;
    if (r === undefined) return;
    out.push({
      id: name,
      everyMs: r.everyMs,
      cron: r.cron,
      tz: r.tz,
      next: new Date(next),
      count: r.count,
      lastRunAt: date(r.lastRunAt),
      lastJob: r.lastJob,
      limit: r.limit,
      startAt: date(r.startAt),
      endAt: date(r.endAt),
      template: ctx.codec.decode(r.template),
    });
  });
  return out;
}

/** Removes scheduler `id`; answers whether there was one. Jobs it already enqueued are untouched. */
export async function removeScheduler<T>(ctx: QueueContext<T>, id: string): Promise<boolean> {
  return (await execute(ctx.conn, t.repeatCancel({ queue: ctx.name, name: id }))) === 'cancelled';
}

/**
 * Fires every due scheduler once (queue.md §10.2): a fresh id per occurrence, straight to pending,
 * and the next occurrence set in the same step, only while the name is still due for the
 * occurrence read, so concurrent pumps fire it once. After downtime a scheduler fires once and moves
 * to its next occurrence after now. Answers how many fired.
 */
export async function fireDueSchedulers<T>(ctx: QueueContext<T>, batch = 100, onError?: (name: string, error: unknown) => void): Promise<number> {
  const due = await execute(ctx.conn, t.schedulerDue({ queue: ctx.name, limit: batch }));
  let fired = 0;
  for (const { name, due: at } of due) {
    try {
      const { cron, tz } = await reads.sendRead(ctx.conn, reads.queue.cronCadence({ keys: ctx.keys, name }));
      const nextAt = cron ? nextMatch(cronOf(cron, tz), Date.now() + 1) : undefined;
      const outcome = await execute(ctx.conn, t.schedulerFire({ queue: ctx.name, name, due: at, id: mintId('JOB'), ...(nextAt === undefined ? {} : { nextAt }) }));
      if (outcome === 'fired') fired++;
    } catch (error) {
      onError?.(name, error);
    }
  }
  return fired;
}
