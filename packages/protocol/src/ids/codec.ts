import { InvalidArgumentError, MalformedIdError } from '../errors/validation.js';
import type { BrandedId } from './branded.js';
import { describeValue } from './describe-value.js';
import { assertSnowflake } from './snowflake.js';

/** Every branded id is exactly this many bytes: 3 of namespace, 11 of payload. */
export const ID_LENGTH = 14;

/** The largest payload, the Base62 form of 2^63 − 1. A payload above it is refused, not wrapped. */
export const MAX_PAYLOAD = 'AzL8n0Y58m7';

/**
 * The Base62 digits in ASCII order, so digit order and byte order agree; that agreement is what
 * makes ids sort by mint order (protocol.md §4.5).
 */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const NS_LENGTH = 3;

// 62^5 and 62^6 both stay below 2^53, so the payload is converted as a 5-digit and a 6-digit half in
// exact float arithmetic, with only one bigint multiply per id.
const HIGH_DIGITS = 5;
const LOW_DIGITS = 6;
const LOW_BASE = 62n ** 6n;

/** The decoded parts of a branded id. */
export interface DecodedId {
  /** The three `A`–`Z` bytes. */
  readonly namespace: string;
  /** The snowflake, in `0..2^63−1`. */
  readonly snowflake: bigint;
}

function isUpper(code: number): boolean {
  return code >= 65 && code <= 90;
}

/** The digit value of an ASCII code, or −1 for a byte outside the alphabet. */
function digitOf(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 90) return code - 55;
  if (code >= 97 && code <= 122) return code - 61;
  return -1;
}

/** True when `ns` is exactly three bytes, each `A`–`Z`. */
export function isNamespace(ns: unknown): ns is string {
  return (
    typeof ns === 'string' &&
    ns.length === NS_LENGTH &&
    isUpper(ns.charCodeAt(0)) &&
    isUpper(ns.charCodeAt(1)) &&
    isUpper(ns.charCodeAt(2))
  );
}

/**
 * Why `value` is not a branded id, or `null` when it is one. The checks run in the spec's order
 * (length, namespace, charset, range) so the reported reason is stable across runtimes.
 */
export function idDefect(value: unknown): string | null {
  if (typeof value !== 'string') return `type: expected a string, got ${typeof value}`;
  if (value.length !== ID_LENGTH) return `length: ${value.length}, expected ${ID_LENGTH}`;
  if (!isNamespace(value.slice(0, NS_LENGTH))) return 'namespace: must be three bytes A-Z';
  for (let i = NS_LENGTH; i < ID_LENGTH; i++) {
    if (digitOf(value.charCodeAt(i)) < 0) return `charset: byte ${i} is outside 0-9A-Za-z`;
  }
  // Charset is checked first, so every byte is ASCII and string order is byte order.
  if (value.slice(NS_LENGTH) > MAX_PAYLOAD) return `range: payload exceeds ${MAX_PAYLOAD}`;
  return null;
}

function digitsValue(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 62 + digitOf(text.charCodeAt(i));
  return n;
}

function appendDigits(n: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = ALPHABET.charAt(n % 62) + out;
    n = Math.floor(n / 62);
  }
  return out;
}

// Every pair of Base62 digits, so the minting hot path writes two digits per string operation.
const PAIRS: readonly string[] = Array.from({ length: 62 * 62 }, (_, n) => ALPHABET.charAt(Math.floor(n / 62)) + ALPHABET.charAt(n % 62));
const LOW_SPAN = 62 ** LOW_DIGITS;

/** The two digits of `n` in `0..3843`. */
function pair(n: number): string {
  return PAIRS[n] as string;
}
const TAIL_SPAN = 2 ** 22;
const LIMB = 2 ** 16;

/**
 * `cur / 62^6` and its remainder, for `cur < 62^6 · 2^16`. The float quotient floors exactly: the
 * nearest it can come below an integer k < 2^16 is k − 1/62^6, which is more than half an ulp of k
 * away from it, so it never rounds up to k.
 */
function divLow(cur: number): [number, number] {
  const q = Math.floor(cur / LOW_SPAN);
  return [q, cur - q * LOW_SPAN];
}

/**
 * Encodes the snowflake `ts << 22 | tail` as a branded id with float arithmetic only: the same bytes
 * as {@link encodeId}, without a bigint per id. The caller vouches for the ranges (a minter does):
 * `namespace` three `A`–`Z` bytes, `ts` an integer in `0..2^41−1`, `tail` (`node << 12 | seq`) one
 * in `0..2^22−1`.
 *
 * @internal The minter's hot path; callers encode with {@link encodeId}.
 */
export function encodeFields<NS extends string>(namespace: NS, ts: number, tail: number): BrandedId<NS> {
  // The 63-bit snowflake as 2^32 · hi + lo, then divided by 62^6 one 16-bit limb at a time: every
  // intermediate stays below 2^52, so each step is exact.
  const hi = Math.floor(ts / 1024);
  const lo = (ts % 1024) * TAIL_SPAN + tail;
  const [q1, r1] = divLow(hi * LIMB + Math.floor(lo / LIMB));
  const [q2, low] = divLow(r1 * LIMB + (lo % LIMB));
  const high = q1 * LIMB + q2;
  const h = Math.floor(high / 3844);
  return (namespace +
    ALPHABET.charAt(Math.floor(h / 3844)) +
    pair(h % 3844) +
    pair(high % 3844) +
    pair(Math.floor(low / 14776336)) +
    pair(Math.floor(low / 3844) % 3844) +
    pair(low % 3844)) as BrandedId<NS>;
}

/**
 * Encodes a namespace and a snowflake as a branded id: the namespace, then the snowflake in
 * big-endian Base62 left-padded with `0` to 11 bytes.
 *
 * @throws InvalidArgumentError when `namespace` is not three `A`–`Z` bytes, or `snowflake` is not a
 *   bigint in `0..2^63−1`.
 */
export function encodeId<NS extends string>(namespace: NS, snowflake: bigint): BrandedId<NS> {
  if (!isNamespace(namespace)) {
    throw new InvalidArgumentError('namespace', `must be exactly three bytes A-Z, got ${JSON.stringify(describeValue(namespace))}`);
  }
  assertSnowflake(snowflake);
  const high = Number(snowflake / LOW_BASE);
  const low = Number(snowflake % LOW_BASE);
  return (namespace + appendDigits(high, HIGH_DIGITS) + appendDigits(low, LOW_DIGITS)) as BrandedId<NS>;
}

/**
 * Decodes a branded id into its namespace and snowflake.
 *
 * @throws MalformedIdError naming the first failed check: length, namespace, charset or range.
 */
export function decodeId(id: string): DecodedId {
  const defect = idDefect(id);
  if (defect !== null) throw new MalformedIdError(describeValue(id), defect);
  const split = NS_LENGTH + HIGH_DIGITS;
  const high = digitsValue(id, NS_LENGTH, split);
  const low = digitsValue(id, split, ID_LENGTH);
  return { namespace: id.slice(0, NS_LENGTH), snowflake: BigInt(high) * LOW_BASE + BigInt(low) };
}
