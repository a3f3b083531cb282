import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { EmqErrorFactory } from '../errors/registry.js';
import { InvalidArgumentError } from '../errors/validation.js';
import { LUA_LIBS } from './generated/lua-sources.js';
import { parseHeader, type ScriptHeader } from './header.js';
import { composeSource, sha1 } from './source.js';

export { sha1 } from './source.js';

/**
 * One atomic transition as the connector sends it: the exact source bytes, their lowercase SHA1
 * (what EVALSHA names) and the header contract the call is checked against.
 */
export interface Script {
  readonly name: string;
  /** The bytes sent to `SCRIPT LOAD`: included libraries, then the file. */
  readonly source: string;
  /**
   * Lowercase hex SHA1 of `source`: computed by the build for the catalog's transitions, and once
   * when the script is defined for {@link defineScript} and {@link loadScript}.
   */
  readonly sha: string;
  /** The script's own text (its file), without the included libraries. */
  readonly body: string;
  readonly header: ScriptHeader;
  /** Error classes this script adds beyond the protocol registry (protocol extensions). */
  readonly errorClasses: Readonly<Record<string, EmqErrorFactory>> | undefined;
}

/** Options for {@link defineScript}. */
export interface DefineScriptOptions {
  /** The Lua text, header first. */
  readonly source: string;
  /** Where the text came from, for error messages. */
  readonly origin?: string;
  /**
   * Folders searched, in order, for `@include` libraries before Echo's own (`core`, `lanes`,
   * `lane-claim`), which travel inside the package and are never read from disk.
   */
  readonly libDirs?: readonly URL[];
  /** Typed errors for class words this script emits that the protocol registry does not know. */
  readonly errorClasses?: Readonly<Record<string, EmqErrorFactory>>;
}

const libCache = new Map<string, string>();

function readLib(name: string, dirs: readonly URL[]): string {
  if (!/^[a-z][a-z0-9_-]*$/.test(name)) throw new InvalidArgumentError('@include', `bad library name ${name}`);
  for (const dir of dirs) {
    const url = new URL(`${name}.lua`, dir);
    const cached = libCache.get(url.href);
    if (cached !== undefined) return cached;
    try {
      const text = readFileSync(url, 'utf8');
      libCache.set(url.href, text);
      return text;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  // Own properties only: a library named like an Object.prototype member must not resolve.
  const builtIn = Object.hasOwn(LUA_LIBS, name) ? LUA_LIBS[name] : undefined;
  if (builtIn !== undefined) return builtIn;
  const searched = [...dirs.map((d) => fileURLToPath(d)), `Echo's own libraries (${Object.keys(LUA_LIBS).join(', ')})`];
  throw new InvalidArgumentError('@include', `library ${name} not found in ${searched.join(', ')}`);
}

/**
 * Defines a transition from its Lua text. Libraries named by `@include` are prepended in order, so
 * the SHA covers exactly what runs. This is also the extension point: a library author writes a
 * `.lua` file with the same header and gets the same connector, slot check and error mapping.
 */
export function defineScript(options: DefineScriptOptions): Script {
  const origin = options.origin ?? 'inline script';
  const header = parseHeader(options.source, origin);
  checkErrorClasses(header, options.errorClasses, origin);
  const libs = header.includes.map((name) => readLib(name, options.libDirs ?? []));
  const source = composeSource(libs, options.source, header);
  return Object.freeze({ name: header.name, source, sha: sha1(source), body: options.source, header, errorClasses: options.errorClasses });
}

/** An error class word: `EMQ` then capitals, the only form the reply mapper reads as a class. */
const ERROR_CLASS = /^EMQ[A-Z]+$/;

/**
 * Holds a script's error classes to the `EMQ<CLASS>` form: every `@error` line starts with one, and
 * every typed factory is keyed by one. A word of another form would reach callers as a plain
 * server error, and a factory under it would never be consulted.
 */
function checkErrorClasses(header: ScriptHeader, classes: DefineScriptOptions['errorClasses'], origin: string): void {
  for (const line of header.errors) {
    const word = line.split(/\s+/)[0] ?? '';
    if (!ERROR_CLASS.test(word)) throw new InvalidArgumentError('script header', `${origin}: @error ${word} is not of the form EMQ<CLASS>`);
  }
  for (const word of Object.keys(classes ?? {})) {
    if (!ERROR_CLASS.test(word)) throw new InvalidArgumentError('errorClasses', `${origin}: ${word} is not of the form EMQ<CLASS>`);
  }
}

/** Reads and defines a script from a `.lua` file (a `file:` URL or a path). */
export function loadScript(file: URL | string, options: Omit<DefineScriptOptions, 'source' | 'origin'> = {}): Script {
  const source = readFileSync(file, 'utf8');
  const origin = typeof file === 'string' ? file : fileURLToPath(file);
  const script = defineScript({ ...options, source, origin });
  const base = origin.replace(/^.*\//, '').replace(/\.lua$/, '');
  if (base !== script.name) {
    throw new InvalidArgumentError('script header', `${origin}: @script ${script.name} does not match the file name`);
  }
  return script;
}
