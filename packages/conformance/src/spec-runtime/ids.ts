/** Branded ids from protocol.md §4 alone: Base62 over a 63-bit snowflake, minted monotonically on the host. */

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const EPOCH = 1704067200000n;
const MAX_PAYLOAD = 'AzL8n0Y58m7';
const NS = /^[A-Z]{3}$/;

/** Encodes `s` under namespace `ns` (11 Base62 digits, big-endian, zero-padded). */
export function encodeId(ns: string, s: bigint): string {
  if (!NS.test(ns)) throw new RangeError(`namespace must be three A-Z letters, got ${JSON.stringify(ns)}`);
  if (s < 0n || s >= 1n << 63n) throw new RangeError('snowflake out of range');
  let digits = '';
  let v = s;
  do {
    digits = ALPHABET.charAt(Number(v % 62n)) + digits;
    v /= 62n;
  } while (v > 0n);
  return ns + digits.padStart(11, '0');
}

/** Decodes a branded id into its namespace and snowflake; throws on any malformed input. */
export function decodeId(id: string): { readonly ns: string; readonly snowflake: bigint } {
  const ns = id.slice(0, 3);
  const payload = id.slice(3);
  if (id.length !== 14 || !NS.test(ns) || !/^[0-9A-Za-z]{11}$/.test(payload) || payload > MAX_PAYLOAD) {
    throw new RangeError(`not a branded id: ${JSON.stringify(id)}`);
  }
  let s = 0n;
  for (const ch of payload) s = s * 62n + BigInt(ALPHABET.indexOf(ch));
  return { ns, snowflake: s };
}

/** The XADD id of an EVT id (bus.md §3): real Unix ms, then the 22-bit node/seq tail. */
export function xaddIdOf(id: string): string {
  const { snowflake } = decodeId(id);
  return `${String((snowflake >> 22n) + EPOCH)}-${String(snowflake & 0x3fffffn)}`;
}

/** A monotonic minter (§4.3): `v = ts << 12 | seq` never goes back, so ids strictly increase. */
export class Minter {
  #v = 0n;
  readonly #node: bigint;

  constructor(node: number) {
    if (!Number.isInteger(node) || node < 0 || node > 1023) throw new RangeError('node must be an integer in 0..1023');
    this.#node = BigInt(node);
  }

  mint(ns: string): string {
    const candidate = (BigInt(Date.now()) - EPOCH) << 12n;
    this.#v = candidate > this.#v ? candidate : this.#v + 1n;
    return encodeId(ns, ((this.#v >> 12n) << 22n) | (this.#node << 12n) | (this.#v & 0xfffn));
  }
}
