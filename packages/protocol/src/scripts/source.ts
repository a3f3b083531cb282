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

/** The Lua name a body uses for the declared argument `name`: `a_token` for `@arg token`. */
export function argLocal(name: string): string {
  return `a_${name}`;
}

/** The parts of a header that name keys and arguments. */
export type KeyNaming = Pick<ScriptHeader, 'keys' | 'restKeys' | 'tails'> & Partial<Pick<ScriptHeader, 'args' | 'restArgs' | 'argTail'>>;

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
 * The declared arguments a body may name, each with its 1-based `ARGV` index: the fixed arguments in
 * header order, then the optional trailing ones `@argtail` names (or the trailing slot itself when the
 * header declares it optional: one value, so it has a fixed index too). Trailing lists (pairs,
 * triples, items) stay indexed: the body walks them.
 */
export function namedArgs(header: KeyNaming): { readonly name: string; readonly index: number }[] {
  const fixed = header.args ?? [];
  const named = fixed.map((slot, i) => ({ name: slot.name, index: i + 1 }));
  const tail = header.argTail ?? [];
  if (tail.length > 0) named.push(...tail.map((name, j) => ({ name, index: fixed.length + 1 + j })));
  else if (header.restArgs && /^(\[TS\]\s*)?optional\b/.test(header.restArgs.doc)) {
    named.push({ name: header.restArgs.name, index: fixed.length + 1 });
  }
  return named.filter(({ name }) => /^[A-Za-z_]\w*$/.test(name));
}

/**
 * The one line that binds the header's argument names for the body: `local a_id, a_token = ARGV[1], ARGV[2]`.
 * As with keys, only names the body mentions are bound, so a script's body never reads `ARGV` by a
 * written position: the header is the one place the order lives.
 */
export function argPrelude(header: KeyNaming, body: string): string {
  const used = namedArgs(header).filter(({ name }) => new RegExp(`\\b${argLocal(name)}\\b`).test(body));
  if (used.length === 0) return '';
  return `local ${used.map(({ name }) => argLocal(name)).join(', ')} = ${used.map(({ index }) => `ARGV[${index}]`).join(', ')}`;
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
 * The bytes Redis runs: the included libraries in `@include` order, the key- and argument-name preludes, then the
 * body. The generator and the run-time loader both call this, so the SHA the generator writes names
 * exactly what is sent. The prelude follows the libraries so they cannot capture one script's names.
 */
export function composeSource(libs: readonly string[], body: string, header: KeyNaming): string {
  const preludes = [keyPrelude(header, body), argPrelude(header, body)].filter((line) => line !== '');
  return [...libs, ...preludes, body].join('\n');
}
