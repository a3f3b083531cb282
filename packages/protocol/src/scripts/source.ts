import { createHash } from 'node:crypto';
import type { ScriptHeader } from './header.js';

/**
 * One script as the build ships it: the file's own text, the libraries its header includes, and the
 * SHA1 of the composed source, computed by the generator when the package was built.
 */
export interface LuaScriptSource {
  /** The `.lua` file's text, header first. */
  readonly body: string;
  /** Library names from the header's `@include` lines, in order. */
  readonly includes: readonly string[];
  /** Lowercase hex SHA1 of {@link composeSource} over the included libraries and the body. */
  readonly sha: string;
}

/** Lowercase hex SHA1, as Redis computes it for `SCRIPT LOAD`. */
export function sha1(text: string): string {
  return createHash('sha1').update(text, 'utf8').digest('hex');
}

/** The Lua name a body uses for the declared key `name`: `k_row` for `@key row`. */
export function keyLocal(name: string): string {
  return `k_${name}`;
}

/** The parts of a header that name keys. */
export type KeyNaming = Pick<ScriptHeader, 'keys' | 'restKeys' | 'tails'>;

/**
 * The declared keys a body may name, each with its 1-based `KEYS` index: the fixed keys in header
 * order; the trailing slot when the header declares it `optional` (one key at most, so it has a
 * fixed index too); and each `@tail` layout's names from the first trailing index on. Trailing
 * lists (flow children, cache entries) stay indexed: they have no names.
 */
export function namedKeys(header: KeyNaming): { readonly name: string; readonly index: number }[] {
  const fixed = header.keys.length;
  const named = header.keys.map((slot, i) => ({ name: slot.name, index: i + 1 }));
  if (header.restKeys && /^optional\b/.test(header.restKeys.doc)) {
    named.push({ name: header.restKeys.name, index: fixed + 1 });
  }
  for (const tail of header.tails) named.push(...tail.names.map((name, j) => ({ name, index: fixed + 1 + j })));
  // A name that is no Lua identifier (an extension's `row-id`) stays reachable as KEYS[i] only.
  return named.filter(({ name }) => /^[A-Za-z_]\w*$/.test(name));
}

/**
 * The one line that binds the header's key names for the body: `local k_row, k_meta = KEYS[1], KEYS[3]`.
 * Only names the body mentions are bound, so an unused declared key costs no lookup; a name read
 * once costs what `KEYS[i]` did, and every further read is a register instead of a global and a
 * table index. Empty when the body names none (scripts that root their keys from a prefix).
 */
export function keyPrelude(header: KeyNaming, body: string): string {
  const used = namedKeys(header).filter(({ name }) => new RegExp(`\\b${keyLocal(name)}\\b`).test(body));
  if (used.length === 0) return '';
  return `local ${used.map(({ name }) => keyLocal(name)).join(', ')} = ${used.map(({ index }) => `KEYS[${index}]`).join(', ')}`;
}

/**
 * The bytes Redis runs: the included libraries in `@include` order, the key-name prelude, then the
 * body. The generator and the run-time loader both call this, so the SHA the generator writes names
 * exactly what is sent. The prelude follows the libraries so they cannot capture one script's names.
 */
export function composeSource(libs: readonly string[], body: string, header: KeyNaming): string {
  const prelude = keyPrelude(header, body);
  return [...libs, ...(prelude === '' ? [] : [prelude]), body].join('\n');
}
