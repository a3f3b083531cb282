import { InvalidArgumentError, writes, type Connection } from '@echo/protocol/bus';
import { instantMs, type Instant } from './instant.js';
import { streamKey } from './keys.js';
import { checkTrimWindow } from './option-checks.js';

/**
 * How much of a stream to keep (bus.md §5). `approx` defaults to `true` (`~`): the server then trims
 * only whole internal nodes, so it may keep more than asked but never less. `false` (`=`) trims
 * exactly to the edge. Either way no entry inside the window is ever removed.
 */
export type TrimWindow =
  /** Keep the `maxlen` newest entries. */
  | { readonly maxlen: number; readonly approx?: boolean }
  /** Keep every entry minted at or after `minid`: the half-open window `[minid, ∞)`. */
  | { readonly minid: Instant; readonly approx?: boolean };

/** What an XTRIM of some stream keeps, as the protocol's `xtrim` takes it (without the key). */
export type TrimInput = { readonly approx: boolean } & ({ readonly maxlen: number } | { readonly minid: string });

/**
 * The XTRIM a window asks for. A `minid` instant becomes `<ms>-0`, so an entry minted in an
 * earlier millisecond is removed and one minted in that millisecond survives.
 *
 * @throws UnknownOptionError for a key a window does not have.
 * @throws InvalidArgumentError for a window that is neither form, a negative or fractional
 *   `maxlen`, a bad instant, or a non-boolean `approx`.
 */
export function trimInput(window: TrimWindow): TrimInput {
  if (typeof window !== 'object' || (window as object | null) === null) throw new InvalidArgumentError('window', 'must be {maxlen} or {minid}');
  checkTrimWindow(window);
  const approx: unknown = window.approx ?? true;
  if (typeof approx !== 'boolean') throw new InvalidArgumentError('window.approx', 'must be a boolean');
  const hasMaxlen = 'maxlen' in window;
  if (hasMaxlen === 'minid' in window) throw new InvalidArgumentError('window', 'must have exactly one of maxlen or minid');
  if (hasMaxlen) {
    const maxlen: unknown = window.maxlen;
    if (typeof maxlen !== 'number' || !Number.isSafeInteger(maxlen) || maxlen < 0) {
      throw new InvalidArgumentError('window.maxlen', `must be an integer >= 0, got ${String(maxlen)}`);
    }
    return { approx, maxlen };
  }
  return { approx, minid: `${instantMs(window.minid, 'window.minid')}-0` };
}

/**
 * Trims a stream with `XTRIM` (bus.md §5). Server errors, such as `WRONGTYPE`, come back unchanged.
 *
 * @returns the number of entries removed; under `approx` it may be 0 even when some are outside.
 * @throws InvalidArgumentError for a malformed window; nothing is sent.
 */
export async function trim(conn: Connection, queue: string, name: string, window: TrimWindow): Promise<number> {
  const key = streamKey(queue, name);
  return writes.sendWrite(conn, writes.xtrim({ key, ...trimInput(window) }));
}
