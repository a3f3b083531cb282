import { InvalidArgumentError, execute, isStreamId, parseDeadLetterRecord, reads, transitions, type EvtId } from '@echo/protocol/bus';
import type { StreamContext } from '../core/context.js';
import { checkDeadLetterRange, checkRedriveTarget } from '../core/option-checks.js';
import type { StreamFields } from '../record/fields.js';
import { TRACEPARENT_FIELD, TRACESTATE_FIELD } from '../record/trace-fields.js';

/**
 * A record of the dead-letter stream `emq:{q}:stream:<name>:dead` [TS]: an entry a consumer group
 * gave up on, with where it came from and why.
 */
export interface DeadLetter {
  /** The record's own id in the dead-letter stream (server-minted: it is not an EVT log). */
  readonly record: string;
  /** The entry's EVT id, its dedup key. */
  readonly id: EvtId;
  /** The entry's XADD id in the stream. */
  readonly xid: string;
  /** The group that gave up on it. */
  readonly group: string;
  /** The consumer that moved it. */
  readonly consumer: string;
  /** Why: the handler's error, its `deadLetter` reason, or `max deliveries exceeded`. */
  readonly reason: string;
  /** Its delivery count when it was moved. */
  readonly attempts: number;
  /** When it was moved, Unix ms (server clock). */
  readonly deadAt: number;
  /** The entry's fields, without `id` (nor, read with `traceContext`, `_tp`/`_ts`). */
  readonly payload: StreamFields;
}

function deadLetterOf(record: string, pairs: readonly string[], carried: boolean): DeadLetter {
  const read = parseDeadLetterRecord(record, pairs);
  const fields: [string, string][] = [];
  for (let i = 0; i + 1 < read.fields.length; i += 2) {
    const field = read.fields[i] as string;
    if (!carried || (field !== TRACEPARENT_FIELD && field !== TRACESTATE_FIELD)) fields.push([field, read.fields[i + 1] as string]);
  }
  return {
    record,
    // As the entry carried it: a foreign entry (no EVT id) can be dead-lettered too.
    id: read.id as EvtId,
    xid: read.xid,
    group: read.group,
    consumer: read.consumer,
    reason: read.reason,
    attempts: read.attempts,
    deadAt: read.deadAt,
    payload: Object.fromEntries(fields),
  };
}

/** A page of a dead-letter read. */
export interface DeadLetterRange {
  /** Only records after this record id (exclusive), for paging. */
  readonly after?: string;
  /** At most this many. Default 100. */
  readonly count?: number;
}

/**
 * Reads the dead-letter stream of a stream, oldest first.
 *
 * @throws InvalidArgumentError for a bad `count` or `after`; UnknownOptionError for an unknown option.
 * @throws InvalidNameError for a bad queue or stream name.
 */
export async function deadLetters(ctx: StreamContext, range: DeadLetterRange = {}): Promise<DeadLetter[]> {
  checkDeadLetterRange(range);
  const count = range.count ?? 100;
  if (!Number.isSafeInteger(count) || count < 1) throw new InvalidArgumentError('count', `must be a positive integer, got ${String(count)}`);
  if (range.after !== undefined && !isStreamId(range.after)) throw new InvalidArgumentError('after', `must be a record id "<ms>-<seq>", got ${JSON.stringify(range.after)}`);
  const from = range.after === undefined ? '-' : `(${range.after}`;
  const entries = await reads.sendRead(ctx.conn, reads.xrange({ key: ctx.deadLettersKey, start: from, count }));
  return entries.map((e) => deadLetterOf(e.id, e.fields ?? [], ctx.traceContext));
}

/** Which dead letters a {@link redrive} puts back. */
export type RedriveTarget = { readonly ids: readonly EvtId[]; readonly group?: string } | { readonly all: true; readonly group?: string };

/** What a {@link redrive} did. */
export interface RedriveResult {
  /** Entries made pending again for their group. */
  readonly redriven: number;
  /** Records left in the dead-letter stream: their entry was trimmed away, or their group is gone. */
  readonly left: readonly DeadLetter[];
}

function targetFilter(target: RedriveTarget): (d: DeadLetter) => boolean {
  const value: unknown = target;
  if (typeof value !== 'object' || value === null) throw new InvalidArgumentError('target', 'must be { ids } or { all: true }');
  checkRedriveTarget(target);
  const group = (target as { group?: unknown }).group;
  if (group !== undefined && typeof group !== 'string') throw new InvalidArgumentError('target.group', 'must be a group name');
  const inGroup = (d: DeadLetter): boolean => group === undefined || d.group === group;
  if ('all' in target && (target.all as unknown) === true) return inGroup;
  if ('ids' in target && Array.isArray(target.ids)) {
    const ids = new Set<string>(target.ids);
    return (d) => ids.has(d.id) && inGroup(d);
  }
  throw new InvalidArgumentError('target', 'must be { ids } or { all: true }');
}

/**
 * Puts dead letters back (transition `stream_redrive` [TS]): each entry becomes pending again for
 * the group that gave up on it, with its delivery count reset and its own id, and is handed to the
 * next claim of any consumer of that group; other groups of the stream see nothing. The records are
 * deleted in the same step. Pages of 100 records are one step each.
 *
 * @throws InvalidArgumentError for a target that is neither `{ ids }` nor `{ all: true }`;
 *   UnknownOptionError for an unknown key.
 */
export async function redrive(ctx: StreamContext, target: RedriveTarget): Promise<RedriveResult> {
  const wanted = targetFilter(target);
  let redriven = 0;
  const left: DeadLetter[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await deadLetters(ctx, after === undefined ? {} : { after });
    const last = page.at(-1);
    if (last === undefined) break;
    after = last.record;
    const chosen = page.filter(wanted);
    if (chosen.length === 0) continue;
    const reply = await execute(ctx.conn, transitions.streamRedrive({ queue: ctx.queue, stream: ctx.name, records: chosen.map((d) => d.record) }));
    redriven += reply.redriven;
    const kept = new Set(reply.left);
    left.push(...chosen.filter((d) => kept.has(d.record)));
  }
  return { redriven, left };
}
