/**
 * A private copy of a value `JSON.parse` produced: plain objects, arrays, strings, numbers,
 * booleans and `null`, nothing else. For the many small records of a typical API value it is about
 * four times cheaper than parsing the JSON text again, and five than `structuredClone` (which checks
 * for every kind of object it could meet); it is only correct for what JSON can hold, so a clone-mode
 * L1 uses it on values its JSON codec decoded, never on a caller's own object.
 */
export function copyJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyJson<unknown>(value[i]);
    return out as T;
  }
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key in source) {
    // JSON.parse makes `__proto__` an own property; assigning it would set the copy's prototype.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copyJson(source[key]), enumerable: true, writable: true, configurable: true });
    else out[key] = copyJson(source[key]);
  }
  return out as T;
}
