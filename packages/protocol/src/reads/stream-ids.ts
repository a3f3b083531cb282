/** A stream entry id as the server writes it: `<ms>-<seq>`, both unsigned 64-bit decimals. */
const STREAM_ID = /^\d{1,20}-\d{1,20}$/;

/** The id below every entry: a read "after" it starts at the head. */
export const STREAM_HEAD = '0-0';

/** True when `value` is a complete stream entry id `<ms>-<seq>`. */
export function isStreamId(value: unknown): value is string {
  return typeof value === 'string' && STREAM_ID.test(value);
}

/**
 * Orders two stream ids `<ms>-<seq>` numerically (both halves are 64-bit, past what a double holds
 * exactly, so they compare as BigInts). Negative when `a` comes first.
 */
export function compareStreamIds(a: string, b: string): number {
  const [am = '0', as = '0'] = a.split('-');
  const [bm = '0', bs = '0'] = b.split('-');
  const ms = BigInt(am) - BigInt(bm);
  if (ms !== 0n) return ms > 0n ? 1 : -1;
  const seq = BigInt(as) - BigInt(bs);
  return seq === 0n ? 0 : seq > 0n ? 1 : -1;
}
