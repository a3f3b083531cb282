import { InvalidArgumentError, reads, type Connection, type EvtId } from '@echo/protocol/bus';
import type { StreamEntry } from './fields.js';
import { instantMs, maxidCeil, minidFloor, type Instant } from './instant.js';
import { streamKey } from './keys.js';
import { checkReadOptions } from './option-checks.js';
import { readEntry, type TraceContextOption } from './trace-fields.js';
import { xaddId } from './xadd-id.js';

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

async function xrange(conn: Connection, key: string, start: string, end: string, count: number | undefined, options: TraceContextOption): Promise<StreamEntry[]> {
  checkReadOptions(options);
  const entries = await reads.sendRead(conn, reads.xrange({ key, start, end, ...(count === undefined ? {} : { count }) }));
  // XRANGE never answers a deleted entry, so every entry has its fields.
  return entries.map((e) => readEntry(e.id, e.fields ?? [], options.traceContext === true));
}

/**
 * Reads records in stream order, which is also id order and mint order (bus.md §4), with
 * `XRANGE key from to [COUNT n]`. Both bounds are inclusive.
 *
 * @returns `[id, fields]` pairs; `fields` never includes `id` (nor, with `traceContext`, `_tp`/`_ts`).
 * @throws InvalidArgumentError for a bound that is neither `-`, `+` nor an EVT id, or a bad `count`.
 * @throws MalformedIdError when an entry on the stream carries no EVT id (a foreign writer).
 */
export async function read(conn: Connection, queue: string, name: string, from: ReadBound = '-', to: ReadBound = '+', count?: number, options: TraceContextOption = {}): Promise<StreamEntry[]> {
  const key = streamKey(queue, name);
  return xrange(conn, key, bound(from, 'from'), bound(to, 'to'), count, options);
}

/**
 * Reads the records minted in `[t0, t1]`, inclusive at both ends to the millisecond (bus.md §6):
 * `XRANGE key minidFloor(t0) maxidCeil(t1)`. The bounds come from wall-clock instants on the host;
 * no script is involved, and no raw snowflake is ever sent.
 *
 * @throws InvalidArgumentError when `t1` is before `t0` (nothing is sent), or either is not an instant.
 */
export async function readWindow(conn: Connection, queue: string, name: string, t0: Instant, t1: Instant, count?: number, options: TraceContextOption = {}): Promise<StreamEntry[]> {
  const key = streamKey(queue, name);
  const from = instantMs(t0, 't0');
  const to = instantMs(t1, 't1');
  if (to < from) throw new InvalidArgumentError('t1', `must not be before t0 (${to} < ${from})`);
  return xrange(conn, key, minidFloor(from), maxidCeil(to), count, options);
}

/**
 * Reads the records minted at or after `t0`: `XRANGE key minidFloor(t0) +` (bus.md §6).
 *
 * @throws InvalidArgumentError when `t0` is not an instant, or for a bad `count`.
 */
export async function readSince(conn: Connection, queue: string, name: string, t0: Instant, count?: number, options: TraceContextOption = {}): Promise<StreamEntry[]> {
  const key = streamKey(queue, name);
  return xrange(conn, key, minidFloor(instantMs(t0, 't0')), '+', count, options);
}
