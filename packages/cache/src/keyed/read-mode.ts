/**
 * What an L1 hit hands back (cache-side safety of shared objects):
 * - `frozen` (default): the stored value is deep-frozen when admitted, and every hit returns it; a
 *   caller that tries to mutate it gets a TypeError in strict mode instead of changing everyone's copy.
 *   Costs once per admission, nothing per hit.
 * - `clone`: every hit returns a `structuredClone`; the caller may mutate freely. Costs per hit.
 * - `shared`: the stored object itself, as most in-memory caches do. Fastest, and unsafe to mutate.
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

/**
 * What goes into L1 for a value the caller still holds (`set`, a factory's answer): under `frozen`,
 * a copy made through the codec (what other processes will decode from L2), frozen, so the
 * caller's own object stays theirs to mutate.
 */
export function admitOwned<T>(mode: ReadMode, value: T, roundTrip: () => T): T {
  if (mode !== 'frozen' || typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return value;
  return deepFreeze(roundTrip());
}

/** What goes into L1 for a value decoded from L2, which no caller holds yet. */
export function admitDecoded<T>(mode: ReadMode, value: T): T {
  return mode === 'frozen' ? deepFreeze(value) : value;
}

/** What a hit hands out. */
export function handOut<T>(mode: ReadMode, value: T): T {
  return mode === 'clone' && typeof value === 'object' && value !== null ? structuredClone(value) : value;
}
