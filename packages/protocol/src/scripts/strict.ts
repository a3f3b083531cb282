import { LUA_STRICT } from './generated/lua-sources.js';
import type { Script } from './script.js';
import { sha1 } from './source.js';

const variants = new WeakMap<Script, Script>();

/**
 * The strict twin of a script: identical behaviour, but every `redis.call` first proves its keys are
 * declared or rooted on a declared root with a checked id (protocol.md §6.1), failing with
 * `EMQKEYLAW` otherwise. Our tests run every transition this way, so a script that builds a key from
 * an unchecked value fails in CI rather than in a cluster.
 */
export function strictVariant(script: Script): Script {
  const known = variants.get(script);
  if (known) return known;
  const body = script.source.replace(/\bredis\.call\(/g, 'emq_strict_call(').replace(/\bredis\.pcall\(/g, 'emq_strict_pcall(');
  const source = `${LUA_STRICT.prelude}\n${body}`;
  const strict: Script = Object.freeze({ ...script, source, sha: sha1(source) });
  variants.set(script, strict);
  return strict;
}
