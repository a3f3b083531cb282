import { LUA_LIBS, LUA_STRICT } from './generated/lua-sources.js';
import { KEY_ARGS } from './key-law.js';
import type { Script } from './script.js';
import { sha1 } from './source.js';

/** The line of `lib/core.lua` that closes its part with no server call (ids and key builders). */
const CORE_PURE_END = '-- core: end of the pure part';
let prelude: string | undefined;
const variants = new WeakMap<Script, Script>();

/**
 * The guard prepended to every strict twin. Its three parts each have one definition elsewhere, so
 * the run-time law cannot drift from the static one:
 * - core's pure part (`vid`, `jkey`, `gkey`), cut from `lib/core.lua` as the build compiled it in: the guard runs
 *   before the script's own libraries, so it cannot reach the copy the script includes;
 * - `EMQ_KEY_ARGS`, written from {@link KEY_ARGS}, the table the static reader checks against;
 * - `strict/prelude.lua`, the guard proper.
 */
export function strictPrelude(): string {
  if (prelude !== undefined) return prelude;
  const core = LUA_LIBS.core ?? '';
  const end = core.indexOf(CORE_PURE_END);
  if (end === -1) throw new Error(`lib/core.lua lost its '${CORE_PURE_END}' line`);
  const pure = core.slice(0, end);
  if (/\bredis\./.test(pure)) throw new Error('the pure part of lib/core.lua calls the server');
  const table = Object.entries(KEY_ARGS)
    .map(([command, arity]) => `['${command}'] = ${typeof arity === 'number' ? String(arity) : `'${arity}'`}`)
    .join(', ');
  prelude = `${pure}\nlocal EMQ_KEY_ARGS = { ${table} }\n${LUA_STRICT.prelude}`;
  return prelude;
}

/**
 * The strict twin of a script: identical behaviour, but every `redis.call` first proves its keys are
 * declared, or were built in this call by `jkey`/`gkey`/`dkey` from a declared root (protocol.md §6.1),
 * failing with `EMQKEYLAW` otherwise. Our tests run every transition this way, so a script that
 * builds a key any other way fails in CI rather than in a cluster.
 */
export function strictVariant(script: Script): Script {
  const known = variants.get(script);
  if (known) return known;
  const body = script.source
    .replace(/\bredis\.call\(/g, 'emq_strict_call(')
    .replace(/\bredis\.pcall\(/g, 'emq_strict_pcall(')
    // A call of a builder, not its definition (`local function jkey(`) in the included core.
    .replace(/(?<!function\s+)(?<![\w.:])([jgd]key)\(/g, 'emq_strict_$1(');
  const source = `${strictPrelude()}\n${body}`;
  const strict: Script = Object.freeze({ ...script, source, sha: sha1(source) });
  variants.set(script, strict);
  return strict;
}
