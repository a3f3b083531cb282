/** The number of cluster slots. */
export const SLOT_COUNT = 16384;

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const encoder = new TextEncoder();

/**
 * CRC16-XMODEM (polynomial 0x1021, initial 0, no reflection, no final XOR): the checksum Redis
 * Cluster uses for slots (protocol.md §3.5). Bitwise rather than table-driven because it only ever
 * runs over short hashtags.
 */
export function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = (crc & 0x8000) !== 0 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

/** The byte range `[start, end)` of the key's hashtag under the cluster rule. */
function hashtagRange(bytes: Uint8Array): readonly [number, number] {
  const open = bytes.indexOf(OPEN_BRACE);
  if (open >= 0) {
    const close = bytes.indexOf(CLOSE_BRACE, open + 1);
    if (close > open + 1) return [open + 1, close];
  }
  return [0, bytes.length];
}

/**
 * The part of `key` that decides its slot: the text between the first `{` and the first `}` after it,
 * when that text is non-empty; otherwise the whole key. This is the Redis Cluster rule, so `{}` or an
 * unclosed `{` hashes the whole key, and only the first brace pair counts.
 */
export function hashtag(key: string): string {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return key.slice(open + 1, close);
  }
  return key;
}

/**
 * The cluster slot of `key`, CRC16 of its hashtag's UTF-8 bytes modulo 16384. A string is encoded as
 * UTF-8 first; braces are ASCII, so the hashtag is the same whether found in the text or the bytes.
 */
export function slot(key: string | Uint8Array): number {
  if (typeof key === 'string') return crc16(encoder.encode(hashtag(key))) % SLOT_COUNT;
  const [start, end] = hashtagRange(key);
  return crc16(key.subarray(start, end)) % SLOT_COUNT;
}

/**
 * True when every key hashes to one slot, which cluster mode requires of a script's keys. An empty
 * list is trivially in one slot.
 */
export function sameSlot(keys: readonly (string | Uint8Array)[]): boolean {
  let first: number | undefined;
  for (const key of keys) {
    const s = slot(key);
    if (first === undefined) first = s;
    else if (s !== first) return false;
  }
  return true;
}
