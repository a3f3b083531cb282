import { InvalidArgumentError, isBrandedId, type Connection, type EvtId } from '@echo/protocol';
import { Stream, type DeadLetter, type RedriveResult } from '@echo/bus';
import type { MinuteCount, Queue, SchedulerInfo } from '@echo/queue';
import type { JobScheduler } from './views.js';

/** A scheduler as the dashboard lists it. */
export interface SchedulerView extends JobScheduler {
  /** Occurrences fired so far. */
  readonly count: number;
  /** The run limit, when it has one. */
  readonly limit: number | null;
  /** The job its last occurrence enqueued. */
  readonly lastJob: string | null;
  /** The template each occurrence enqueues, as stored. */
  readonly template: string;
}

/** The cadence of a scheduler as text: `every 60000 ms` or the cron pattern (with its zone). */
function pattern(s: SchedulerInfo<string>): string {
  if (s.cron !== undefined) return s.tz === undefined ? s.cron : `${s.cron} (${s.tz})`;
  return `every ${String(s.everyMs ?? 0)} ms`;
}

/** A queue's schedulers, soonest next run first. */
export async function schedulerViews(queue: Queue<string>): Promise<SchedulerView[]> {
  return (await queue.getSchedulers()).map((s) => ({
    id: s.id,
    next: s.next.getTime(),
    lastRunAt: s.lastRunAt?.getTime() ?? null,
    pattern: pattern(s),
    count: s.count,
    limit: s.limit ?? null,
    lastJob: s.lastJob ?? null,
    template: s.template,
  }));
}

/** A dead letter as the dashboard shows it: the record's fields, its payload as JSON text. */
export type DeadLetterView = Omit<DeadLetter, 'payload'> & { readonly payload: Readonly<Record<string, string>> };

/** Most dead letters one page shows. */
export const DEAD_LETTER_PAGE = 100;

/** The oldest dead letters of a stream (one page of at most `count`, after record `after`). */
export async function streamDeadLetters(conn: Connection, queue: string, stream: string, range: { after?: string; count?: number } = {}): Promise<DeadLetterView[]> {
  const page = await new Stream(conn, queue, stream).deadLetters({ count: range.count ?? DEAD_LETTER_PAGE, ...(range.after === undefined ? {} : { after: range.after }) });
  return page.map((d) => ({ ...d, payload: { ...d.payload } }));
}

/** Puts a stream's dead letters back (`stream_redrive`): those listed by entry id, or all. */
export async function redriveDeadLetters(conn: Connection, queue: string, stream: string, ids: readonly string[] | 'all'): Promise<{ redriven: number; left: number }> {
  if (ids !== 'all') {
    if (ids.length === 0) throw new InvalidArgumentError('ids', 'must name at least one entry');
    for (const id of ids) if (!isBrandedId(id) || !id.startsWith('EVT')) throw new InvalidArgumentError('ids', `${JSON.stringify(id)} is not an entry id (EVT…)`);
  }
  const result: RedriveResult = await new Stream(conn, queue, stream).redrive(ids === 'all' ? { all: true } : { ids: ids as readonly EvtId[] });
  return { redriven: result.redriven, left: result.left.length };
}

/** A queue's per-minute counts (the last `minutes`), and whether the queue keeps them at all. */
export async function minuteCounts(queue: Queue<string>, minutes: number): Promise<MinuteCount[]> {
  return queue.getMinutes(minutes);
}
