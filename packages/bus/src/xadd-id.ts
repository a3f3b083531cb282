import { ID_EPOCH_MS, decodeId, parseId, type EvtId, type MintedId } from '@echo/protocol/bus';

const EPOCH = BigInt(ID_EPOCH_MS);
const TAIL_MASK = 0x3fffffn;

/**
 * Checks that `id` is an EVT branded id, with no I/O. Only EVT ids are admitted to a stream: the
 * order theorem (bus.md §4) holds within one namespace only.
 *
 * @throws MalformedIdError when `id` is not a branded id.
 * @throws KindError when it is one, but not EVT.
 */
export function parseEvtId(id: string): EvtId {
  return parseId(id, 'EVT');
}

/**
 * The XADD id of an EVT record (bus.md §3): the mint's real Unix milliseconds, then the full 22-bit
 * `node << 12 | seq` tail. Using Unix ms (not the epoch-relative `ts`) is what lets a time-window
 * read take plain wall-clock bounds; keeping the node in the tail keeps two nodes that mint the
 * same ms and sequence apart.
 *
 * @throws MalformedIdError when `id` is not a branded id.
 * @throws KindError when it is one, but not EVT.
 */
export function xaddId(id: string): string {
  const s = decodeId(parseEvtId(id)).snowflake;
  return `${(s >> 22n) + EPOCH}-${s & TAIL_MASK}`;
}

/**
 * The XADD id of a record minted just now, from the fields its minter answered beside it: the same
 * string as {@link xaddId} of the id, without decoding it again.
 */
export function xaddIdOf(minted: MintedId<'EVT'>): string {
  return `${minted.unixMs}-${minted.node * 4096 + minted.seq}`;
}
