import { InvalidArgumentError } from '../errors/validation.js';
import type { BrandedId } from './branded.js';
import { encodeFields, isNamespace } from './codec.js';
import { describeValue } from './describe-value.js';
import { ID_EPOCH_MS } from './snowflake.js';

/** The number of distinct node values, 10 bits. */
export const NODE_COUNT = 1024;

const SEQ_SPAN = 4096;
// The logical clock `ts << 12 | seq` must fit 53 bits so that it stays exact as a float and its ts
// stays within 41 bits; past this point (the year 2093) the snowflake would exceed 2^63 − 1.
const MAX_CLOCK = Number.MAX_SAFE_INTEGER;

/** Options for {@link IdMinter}. */
export interface IdMinterOptions {
  /** This minter's node, an integer in 0..1023; it keeps two processes' ids apart. */
  readonly node: number;
  /** Unix milliseconds; defaults to `Date.now`. Injectable so tests can freeze or rewind time. */
  readonly now?: () => number;
  /**
   * A minter this one replaces. The new minter starts in the millisecond after the predecessor's
   * logical clock, so swapping minters (to change the node) keeps the process's ids strictly increasing.
   */
  readonly continueFrom?: IdMinter;
}

/**
 * A freshly minted id with the fields of its snowflake, read off the minter's clock rather than
 * decoded back from the id.
 */
export interface MintedId<NS extends string = string> {
  /** The id, byte for byte what {@link IdMinter.mint} would have answered. */
  readonly id: BrandedId<NS>;
  /** The mint's Unix milliseconds (the snowflake's `ts` plus {@link ID_EPOCH_MS}). */
  readonly unixMs: number;
  /** The minting node, 0..1023. */
  readonly node: number;
  /** The per-millisecond sequence, 0..4095. */
  readonly seq: number;
}

/**
 * Checks that `node` is an integer in 0..1023.
 *
 * @throws InvalidArgumentError otherwise.
 */
export function assertNodeId(node: unknown, argument = 'node'): asserts node is number {
  if (typeof node !== 'number' || !Number.isInteger(node) || node < 0 || node >= NODE_COUNT) {
    throw new InvalidArgumentError(argument, `must be an integer in 0..1023, got ${describeValue(node)}`);
  }
}

function assertNamespace(namespace: string): void {
  if (!isNamespace(namespace)) {
    throw new InvalidArgumentError('namespace', `must be exactly three bytes A-Z, got ${JSON.stringify(describeValue(namespace))}`);
  }
}

/**
 * Mints branded ids whose snowflakes strictly increase (protocol.md §4.3). It keeps one logical clock
 * `v = ts << 12 | seq` and moves it to `max((now − epoch) << 12, v + 1)` on every mint: a full
 * sequence carries into the timestamp, and a clock that steps back is ignored until it catches up.
 */
export class IdMinter {
  /** The node embedded in every snowflake this minter emits. */
  readonly node: number;
  readonly #now: () => number;
  readonly #nodeBits: bigint;
  /** `node << 12`, the tail of every snowflake before its sequence. */
  readonly #tail: number;
  #clock: number;

  /** @throws InvalidArgumentError when `node` is not an integer in 0..1023. */
  constructor(options: IdMinterOptions) {
    assertNodeId(options.node);
    this.node = options.node;
    this.#nodeBits = BigInt(options.node) << 12n;
    this.#tail = options.node * SEQ_SPAN;
    this.#now = options.now ?? Date.now;
    // The node sits above the sequence in a snowflake, so a new node minting in the predecessor's last
    // millisecond could sort below it; starting at the next millisecond keeps the order strict.
    const previous = options.continueFrom;
    this.#clock = previous === undefined ? -1 : (Math.floor(previous.#clock / SEQ_SPAN) + 1) * SEQ_SPAN - 1;
  }

  /**
   * Advances the logical clock and returns the new snowflake.
   *
   * @throws InvalidArgumentError when the clock reads a non-finite time or one past the 41-bit range.
   */
  nextSnowflake(): bigint {
    const clock = this.#advance();
    return (BigInt(Math.floor(clock / SEQ_SPAN)) << 22n) | this.#nodeBits | BigInt(clock % SEQ_SPAN);
  }

  /**
   * Mints a new id in `namespace`. The namespace is checked first, so a refused call does not spend a
   * sequence number.
   *
   * @throws InvalidArgumentError when `namespace` is not three `A`–`Z` bytes.
   */
  mint<NS extends string>(namespace: NS): BrandedId<NS> {
    assertNamespace(namespace);
    const clock = this.#advance();
    return encodeFields(namespace, Math.floor(clock / SEQ_SPAN), this.#tail + (clock % SEQ_SPAN));
  }

  /**
   * Mints like {@link mint}, and answers the snowflake's fields beside the id, so a caller that
   * needs the time or the sequence (a stream's XADD id) does not decode the id it just minted.
   *
   * @throws InvalidArgumentError when `namespace` is not three `A`–`Z` bytes.
   */
  mintParts<NS extends string>(namespace: NS): MintedId<NS> {
    assertNamespace(namespace);
    const clock = this.#advance();
    const ts = Math.floor(clock / SEQ_SPAN);
    const seq = clock % SEQ_SPAN;
    return { id: encodeFields(namespace, ts, this.#tail + seq), unixMs: ts + ID_EPOCH_MS, node: this.node, seq };
  }

  /** Moves the logical clock `ts << 12 | seq` on by one mint and answers it. */
  #advance(): number {
    const now = this.#now();
    if (!Number.isFinite(now)) throw new InvalidArgumentError('now', `clock returned ${now}`);
    const candidate = Math.floor(now - ID_EPOCH_MS) * SEQ_SPAN;
    const clock = Math.max(candidate, this.#clock + 1);
    if (clock > MAX_CLOCK) throw new InvalidArgumentError('now', 'clock is past the 41-bit timestamp range');
    this.#clock = clock;
    return clock;
  }
}
