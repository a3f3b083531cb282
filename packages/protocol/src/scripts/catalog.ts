import { InvalidArgumentError } from '../errors/validation.js';
import { LUA_LIBS, LUA_SCRIPT_NAMES, LUA_SCRIPTS, type ScriptName } from './generated/lua-sources.js';
import { parseHeader } from './header.js';
import type { Script } from './script.js';
import { composeSource } from './source.js';

export type { ScriptName } from './generated/lua-sources.js';

/**
 * Every transition of the protocol (protocol.md §7), one `.lua` file each, in code-unit order. The
 * generator writes the list from the folder, so a script is catalogued by being written; a test
 * holds the list to the folder.
 */
export const SCRIPT_NAMES: readonly ScriptName[] = LUA_SCRIPT_NAMES;

const loaded = new Map<ScriptName, Script>();

/**
 * Builds a transition from the module the build generated from `lua/`. The SHA is the generator's,
 * trusted rather than recomputed: a test recomputes every one against the composed source and
 * regenerates the module to prove it is current, and the connector checks the digest `SCRIPT LOAD`
 * returns against it.
 */
function load(name: ScriptName): Script {
  let script = loaded.get(name);
  if (!script) {
    const { body, includes, sha } = LUA_SCRIPTS[name];
    const libs = includes.map((lib) => {
      const text = Object.hasOwn(LUA_LIBS, lib) ? LUA_LIBS[lib] : undefined;
      if (text === undefined) throw new InvalidArgumentError('@include', `${name}: library ${lib} is not in the build`);
      return text;
    });
    const header = parseHeader(body, `lua/${name}.lua`);
    script = Object.freeze({ name, source: composeSource(libs, body, header), sha, body, header, errorClasses: undefined });
    loaded.set(name, script);
  }
  return script;
}

const catalog = Object.freeze(
  Object.defineProperties(
    {},
    Object.fromEntries(SCRIPT_NAMES.map((name) => [name, { enumerable: true, get: () => load(name) }])),
  ),
) as Readonly<Record<ScriptName, Script>>;

/**
 * The catalog of protocol transitions. Sources and SHAs are compiled from the `.lua` files into the
 * package at build time (nothing is read from disk, so bundlers work); each script is assembled on
 * first use, then kept.
 */
export function scripts(): Readonly<Record<ScriptName, Script>> {
  return catalog;
}
