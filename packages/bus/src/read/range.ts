import { InvalidArgumentError, reads, type EvtId } from '@echo/protocol/bus';
import type { StreamContext } from '../core/context.js';
import type { StreamEntry } from '../record/fields.js';
import { instantMs, maxidCeil, minidFloor, type Instant } from '../record/instant.js';
import { readEntry } from '../record/trace-fields.js';
import { xaddId } from '../record/xadd-id.js';

/**
 * One end of a {@link read}: `-` (the oldest entry), `+` (the newest), or an EVT id, inclusive.
 * Ids are translated to their XADD ids here, so callers never handle XADD ids at all.
 */
export type ReadBound = '-' | '+' | EvtId;

function bound(value: string, argument: string): string {
  if (value === '-' || value === '+') return value;
  try {
    return xaddId(value);
  } catch (error) {
    if (error instanceof Error) throw new InvalidArgumentError(argument, `must be "-", "+" or an EVT id: ${error.message}`);
    throw error;
  }
}

async function xrange(ctx: StreamContext, start: string, end: string, count: number | undefined): Promise<StreamEntry[]> {
  const entries = await reads.sendRead(ctx.conn, reads.xrange({ key: ctx.key, start, end, ...(count === undefined ? {} : { count }) }));
  // XRANGE never answers a deleted entry, so every entry has its fields.
  return entries.map((e) => readEntry(e.id, e.fields ?? [], ctx.traceContext));
}

/**
 * Reads records in stream order, which is also id order and mint order (bus.md §4), with
 * `XRANGE key from to [COUNT n]`. Both bounds are inclusive.
 *
 * @returns `[id, fields]` pairs; `fields` never includes `id` (nor, with `traceContext`, `_tp`/`_ts`).
 * @throws InvalidArgumentError for a bound that is neither `-`, `+` nor an EVT id, or a bad `count`.
 * @throws MalformedIdError when an entry on the stream carries no EVT id (a foreign writer).
 */
export async function read(ctx: StreamContext, from: ReadBound = '-', to: ReadBound = '+', count?: number): Promise<StreamEntry[]> {
  return xrange(ctx, bound(from, 'from'), bound(to, 'to'), count);
}

/**
 * Reads the records minted in `[t0, t1]`, inclusive at both ends to the millisecond (bus.md §6):
 * `XRANGE key minidFloor(t0) maxidCeil(t1)`. The bounds come from wall-clock instants on the host;
 * no script is involved, and no raw snowflake is ever sent.
 *
 * @throws InvalidArgumentError when `t1` is before `t0` (nothing is sent), or either is not an instant.
 */
export async function readWindow(ctx: StreamContext, t0: Instant, t1: Instant, count?: number): Promise<StreamEntry[]> {
  const from = instantMs(t0, 't0');
  const to = instantMs(t1, 't1');
  if (to < from) throw new InvalidArgumentError('t1', `must not be before t0 (${to} < ${from})`);
  return xrange(ctx, minidFloor(from), maxidCeil(to), count);
}

/**
 * Reads the records minted at or after `t0`: `XRANGE key minidFloor(t0) +` (bus.md §6).
 *
 * @throws InvalidArgumentError when `t0` is not an instant, or for a bad `count`.
 */
export async function readSince(ctx: StreamContext, t0: Instant, count?: number): Promise<StreamEntry[]> {
  return xrange(ctx, minidFloor(instantMs(t0, 't0')), '+', count);
}
