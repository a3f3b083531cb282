import { type CacheCodec, jsonCodec } from '../base/codec.js';
import { copyJson } from './json-copy.js';

/**
 * What an L1 hit hands back (cache-side safety of shared objects):
 * - `frozen` (default): the stored value is deep-frozen when admitted, and every hit returns it; a
 *   caller that tries to mutate it gets a TypeError in strict mode instead of changing everyone's copy.
 *   Costs once per admission, nothing per hit.
 * - `clone`: every hit returns a fresh copy the caller may mutate freely. With the default JSON codec
 *   L1 decodes its stored text once, at the first hit, into a value nobody else sees, and each hit
 *   copies that value (`copyJson`, about 4x cheaper than parsing the text again for many small
 *   records); with another codec each hit decodes the stored encoding afresh.
 * - `shared`: the stored object itself, as most in-memory caches do. Fastest, and unsafe to mutate.
 *
 * Without an L1 (`l1: false`) nothing is kept, so a value read from L2 by one caller is its own,
 * neither frozen nor copied. Callers that share one load share its value frozen under `frozen`
 * (no copy: a copy per caller costs more than the read), get copies under `clone`, and the same
 * object under `shared`.
 */
export type ReadMode = 'frozen' | 'clone' | 'shared';

/** The read modes a namespace may declare. */
export const READ_MODES: readonly ReadMode[] = ['frozen', 'clone', 'shared'];

/**
 * Freezes `value` and everything reachable from it. Typed arrays and Buffers cannot be frozen (their
 * elements are not properties), so they are left as they are; so are objects that are already frozen.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || ArrayBuffer.isView(value)) return value;
  Object.freeze(value);
  for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
  return value;
}

/** What L1 holds of a value: the value, or (clone mode, or a frozen value not yet read) its encoding and no value. */
export interface Held<T> {
  value: T;
  encoded?: string | Buffer | undefined;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !ArrayBuffer.isView(value);
}

/** One namespace's read mode: what goes into L1 and what each caller gets out. */
export class Copies<T> {
  readonly #codec: CacheCodec<T>;
  readonly #mode: ReadMode;
  readonly #l1: boolean;
  /** The default codec's text is kept as a string, so a clone-mode hit is one `JSON.parse`. */
  readonly #text: boolean;

  constructor(codec: CacheCodec<T>, mode: ReadMode, l1: boolean) {
    this.#codec = codec;
    this.#mode = mode;
    this.#l1 = l1;
    this.#text = codec === jsonCodec<T>();
  }

  /** True when every hit copies (clone mode with an L1). */
  get copies(): boolean {
    return this.#mode === 'clone' && this.#l1;
  }

  /**
   * Decodes a frame's value bytes read from L2. The answer's `value` may be handed to the reader as
   * it is: under `frozen` it is frozen (L1 shares it), under `clone` L1 hands out copies of
   * `encoded`, and without an L1 nobody else holds it.
   */
  fromL2(bytes: Buffer): Held<T> {
    if (this.copies) {
      const encoded = this.#text ? bytes.toString('utf8') : Buffer.from(bytes);
      return { value: this.#decode(encoded), encoded };
    }
    const value = this.#codec.decode(bytes);
    return { value: this.#mode === 'frozen' && this.#l1 ? deepFreeze(value) : value };
  }

  /**
   * What L1 keeps of a value its caller still holds (`set`, a factory's answer): under `clone`, the
   * encoding hits decode from; under `frozen`, the encoding too, decoded into a frozen copy by the
   * first hit (what other processes will read), so the caller's object stays theirs and a value
   * written but never read here costs no decode. The caller's object is not kept beside its encoding:
   * no hit hands it out, and a factory's fresh answer (often larger on the heap than its text) would
   * otherwise live as long as the entry, doubling what every filled but unread entry costs the
   * collector. `value` stays unset until a hit decodes the encoding.
   */
  owned(value: T, encoded: string | Buffer): Held<T> {
    if (this.copies || (this.#mode === 'frozen' && isObject(value))) return { value: undefined as T, encoded };
    return { value };
  }

  /**
   * What a hit on a held entry hands out: the shared value, or a frozen one decoded once here, or
   * under `clone` a fresh copy (see {@link ReadMode}).
   */
  out(held: Held<T>): T {
    if (this.#mode === 'clone') return this.#copy(held);
    if (held.encoded === undefined) return held.value;
    held.value = deepFreeze(this.#decode(held.encoded));
    held.encoded = undefined;
    return held.value;
  }

  #copy(held: Held<T>): T {
    if (this.#text) {
      // The stored text becomes L1's private value once; every hit copies that value.
      if (held.encoded !== undefined) {
        held.value = this.#decode(held.encoded);
        held.encoded = undefined;
      }
      return copyJson(held.value);
    }
    if (held.encoded !== undefined) return this.#decode(held.encoded);
    return isObject(held.value) ? structuredClone(held.value) : held.value;
  }

  /**
   * What a caller that joined another caller's load gets: its own copy under `clone`, else the
   * shared value, frozen under `frozen` (without an L1 it was not frozen when read, as its reader
   * might have been alone). The first joiner freezes it before the caller that started the load
   * resumes: joiners react to the load's promise directly, that caller through the verb's own await.
   */
  joined(value: T): T {
    if (this.#mode === 'shared' || !isObject(value)) return value;
    if (this.#mode === 'frozen') return this.#l1 ? value : deepFreeze(value);
    return structuredClone(value);
  }

  #decode(encoded: string | Buffer): T {
    if (typeof encoded === 'string') return this.#text ? (JSON.parse(encoded) as T) : this.#codec.decode(Buffer.from(encoded, 'utf8'));
    return this.#codec.decode(encoded);
  }
}
