import { type BrandedId, InvalidArgumentError, assertBrandedId, isBrandedId } from '@echo/protocol/cache';

/** A coherence message is `<id>:<version>`: 14 + 1 + 14 bytes (cache.md §7.1). */
export const MESSAGE_LENGTH = 29;

/** The separator's 0-based offset; the spec's "byte 15". */
const SEPARATOR_AT = 14;
const COLON = 0x3a;

/** A parsed coherence message: which entry changed, and the version of the change. */
export interface CoherenceMessage {
  readonly id: BrandedId;
  readonly version: BrandedId;
}

/**
 * Builds the 29-byte payload. It carries no value, timestamp or node id: the version alone orders
 * changes, so receivers need no clock or coordinator.
 *
 * @throws MalformedIdError when either half is not a branded id.
 */
export function encodeMessage(id: BrandedId, version: BrandedId): string {
  assertBrandedId(id);
  assertBrandedId(version);
  return `${id}:${version}`;
}

/**
 * Parses a payload, or answers `null` for anything that is not exactly 29 bytes with `:` at byte 15
 * and a branded id on each side. A receiver drops what does not parse; it never half-applies it.
 */
export function parseMessage(payload: Buffer | string): CoherenceMessage | null {
  const bytes = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  if (bytes.length !== MESSAGE_LENGTH || bytes[SEPARATOR_AT] !== COLON) return null;
  const id = bytes.toString('latin1', 0, SEPARATOR_AT);
  const version = bytes.toString('latin1', SEPARATOR_AT + 1);
  if (!isBrandedId(id) || !isBrandedId(version)) return null;
  return { id, version };
}

/**
 * Newer wins (cache.md §7.2): true when bytes 4–14 of `a` (the snowflake payload, counting from 1)
 * sort after those of `b`. Namespaces are ignored, so versions minted in different namespaces still
 * compare in mint order (protocol.md §4.5). JS compares strings by UTF-16 code unit, which for these
 * ASCII (or latin1-decoded) strings is byte order.
 *
 * @throws InvalidArgumentError when either side is not a string.
 */
export function newer(a: string, b: string): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') throw new InvalidArgumentError('version', 'must be a string');
  return a.slice(3, 14) > b.slice(3, 14);
}
