/**
 * Compiles `lua/` into one TypeScript string module, so the package (and any bundle made from it)
 * carries its transitions instead of reading `.lua` files next to `import.meta.url` at run time.
 *
 *   tsx scripts/gen-lua.ts           writes src/scripts/generated/lua-sources.ts
 *   tsx scripts/gen-lua.ts --check   exits 1 when the committed module differs from the files
 *
 * The `.lua` files stay the source of truth; the module is committed because tests, typecheck and
 * lint read `src/` without a build.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeGenerated } from './generated-file.js';
import { JOB_SUBS } from '../src/keys/registry.js';
import { parseHeader } from '../src/scripts/header.js';
import { composeSource, namedKeys, sha1 } from '../src/scripts/source.js';

/** Echo's Lua folder in this package. */
export const LUA_DIR = new URL('../lua/', import.meta.url);
/** Where the generated module lives. */
export const GENERATED_FILE = new URL('../src/scripts/generated/lua-sources.ts', import.meta.url);
/** The transitions whose modules decide which pillar runs each script (see {@link scriptPillars}). */
export const TRANSITIONS_DIR = new URL('../src/transitions/', import.meta.url);
/** The command that rewrites the module, for error messages. */
export const REGENERATE = 'pnpm --filter @echo/protocol run gen:lua';

function luaFiles(dir: URL): Map<string, string> {
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.lua'))
    .map((f) => f.slice(0, -'.lua'.length))
    .sort(byCodeUnit);
  return new Map(names.map((name) => [name, readFileSync(new URL(`${name}.lua`, dir), 'utf8')]));
}

/** Locale-free order, so every machine writes the same bytes. */
function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A template literal that evaluates to exactly `text`; keeps the Lua readable line by line in diffs. */
function literal(text: string): string {
  return `\`${text.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${').replace(/\r/g, '\\r')}\``;
}

/** An object key: bare when it is an identifier, quoted otherwise (`lane-claim`). */
function key(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name}'`;
}

/**
 * Markers in `lib/core.lua` the generator replaces with Lua literals written from the key registry's
 * `JOB_SUBS`, so the Lua copy of the job sub-keys cannot drift from the TypeScript one: the set
 * `jkey` checks against (with `''`, the row itself) and the list `wipe_job` deletes.
 */
const JOB_SUB_MARKERS: Readonly<Record<string, string>> = {
  EMQ_GENERATED_JOB_SUB_SET: `{ [''] = true, ${JOB_SUBS.map((s) => `[':${s}'] = true`).join(', ')} }`,
  EMQ_GENERATED_JOB_SUB_LIST: `{ ${JOB_SUBS.map((s) => `':${s}'`).join(', ')} }`,
};

/** Replaces the registry markers in a library; `core` must hold each exactly once. */
function expandMarkers(name: string, text: string, origin: string): string {
  let out = text;
  for (const [marker, literal] of Object.entries(JOB_SUB_MARKERS)) {
    const count = out.split(marker).length - 1;
    if (name === 'core' && count !== 1) throw new Error(`${origin}: expected ${marker} once, found ${count}`);
    out = out.replaceAll(marker, literal);
  }
  return out;
}

/** A `redis.call('CMD'` or `redis.pcall("CMD"` with a literal command; anything else is refused. */
const SERVER_CALL = /redis\.p?call\(\s*(?:'([A-Za-z]+)'|"([A-Za-z]+)")?/g;

/**
 * The Redis commands a Lua text calls, in ACL spelling (lower case). A call whose command is not a
 * literal would escape the ACL lists built from this, so it stops the build.
 */
export function serverCommands(text: string, origin: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(SERVER_CALL)) {
    const command = m[1] ?? m[2];
    if (command === undefined) throw new Error(`${origin}: a redis.call whose command is not a literal`);
    found.add(command.toLowerCase());
  }
  return [...found].sort(byCodeUnit);
}

/**
 * The commands a script can reach: its body's, the libraries' top-level code's, and those of every
 * library function the reached code mentions (called or passed on), followed transitively. Libraries
 * are written with each `local function` opening and its `end` at column 0, which is how they are
 * cut here; a function nothing reaches adds nothing, so `core`'s wake push does not widen the cache's
 * ACL. Comments are dropped first: a function a comment names is not reached.
 */
export function reachableCommands(libs: readonly string[], body: string, origin: string): string[] {
  const uncomment = (text: string): string => text.split('\n').map((l) => l.replace(/--.*$/, '')).join('\n');
  const functions = new Map<string, string>();
  const top: string[] = [uncomment(body)];
  for (const lib of libs) {
    let current: { name: string; lines: string[] } | undefined;
    for (const line of uncomment(lib).split('\n')) {
      const opened = /^local function (\w+)/.exec(line);
      if (opened?.[1]) current = { name: opened[1], lines: [] };
      if (current) current.lines.push(line);
      else top.push(line);
      if (current && /^end\b/.test(line)) {
        functions.set(current.name, current.lines.join('\n'));
        current = undefined;
      }
    }
    if (current) throw new Error(`${origin}: library function ${current.name} has no closing 'end' at column 0`);
  }
  const reached = new Set<string>();
  const texts = [...top];
  // An array iterator reads the length at each step, so functions pushed here are visited too.
  for (const text of texts) {
    for (const [word] of text.matchAll(/\b[A-Za-z_]\w*\b/g)) {
      const fn = functions.get(word);
      if (fn !== undefined && !reached.has(word)) {
        reached.add(word);
        texts.push(fn);
      }
    }
  }
  return serverCommands(texts.join('\n'), origin);
}

/** Which pillar runs a script: the one whose transitions module binds it. Others are the queue's. */
const PILLAR_OF_MODULE: Readonly<Record<string, 'bus' | 'cache'>> = { 'streams.ts': 'bus', 'cache.ts': 'cache' };

/**
 * Reads `src/transitions/*.ts` for `scripts().<name>` and files each script under the pillar of the
 * module that binds it. A script no transition binds, or that modules of two pillars bind, stops
 * the build: the ACL lists are derived from this.
 */
export function scriptPillars(names: Iterable<string>, dir: URL = TRANSITIONS_DIR): Map<string, 'queue' | 'bus' | 'cache'> {
  const pillars = new Map<string, 'queue' | 'bus' | 'cache'>();
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).sort(byCodeUnit);
  for (const file of files) {
    const pillar = PILLAR_OF_MODULE[file] ?? 'queue';
    for (const m of readFileSync(new URL(file, dir), 'utf8').matchAll(/scripts\(\)\.(\w+)/g)) {
      const name = m[1] ?? '';
      const known = pillars.get(name);
      if (known !== undefined && known !== pillar) throw new Error(`${file}: ${name} is bound by the ${known} and the ${pillar} transitions`);
      pillars.set(name, pillar);
    }
  }
  for (const name of names) if (!pillars.has(name)) throw new Error(`lua/${name}.lua: no transition binds it`);
  return pillars;
}

/**
 * Renders the module for the given Lua folder. Fails when a header does not parse, names a script
 * other than its file, or includes a library that `lib/` does not hold, so a broken file stops the
 * build rather than the first call.
 */
export function renderLuaModule(luaDir: URL = LUA_DIR, transitionsDir: URL = TRANSITIONS_DIR): string {
  const libs = new Map([...luaFiles(new URL('lib/', luaDir))].map(([name, text]) => [name, expandMarkers(name, text, `lua/lib/${name}.lua`)]));
  const strict = luaFiles(new URL('strict/', luaDir));
  const scripts = luaFiles(luaDir);

  const entries: string[] = [];
  const commands: string[] = [];
  const pillars = scriptPillars(scripts.keys(), transitionsDir);
  const byPillar: Record<'queue' | 'bus' | 'cache', string[]> = { queue: [], bus: [], cache: [] };
  for (const [name, body] of scripts) {
    const origin = fileURLToPath(new URL(`${name}.lua`, luaDir));
    const header = parseHeader(body, origin);
    if (header.name !== name) throw new Error(`${origin}: @script ${header.name} does not match the file name`);
    const included = header.includes.map((lib) => {
      const text = libs.get(lib);
      if (text === undefined) throw new Error(`${origin}: @include ${lib}: no lua/lib/${lib}.lua`);
      return text;
    });
    const named = namedKeys(header);
    const twice = named.find((a, i) => named.findIndex((b) => b.name === a.name) !== i);
    if (twice !== undefined) throw new Error(`${origin}: key name ${twice.name} is declared twice; the body names keys by these names`);
    if (header.tails.length > 0 && header.restKeys === undefined) throw new Error(`${origin}: @tail without @keys`);
    const sha = sha1(composeSource(included, body, header));
    const includes = header.includes.map((lib) => `'${lib}'`).join(', ');
    const calls = reachableCommands(included, body, origin);
    commands.push(`  ${key(name)}: [${calls.map((c) => `'${c}'`).join(', ')}],`);
    byPillar[pillars.get(name) ?? 'queue'].push(name);
    entries.push(`  ${key(name)}: {\n    sha: '${sha}',\n    includes: [${includes}],\n    body: ${literal(body)},\n  },`);
  }

  const record = (texts: Map<string, string>): string =>
    [...texts].map(([name, text]) => `  ${key(name)}: ${literal(text)},`).join('\n');
  // Named unions rather than `as const`, so the declaration files carry names, not the Lua text.
  const union = (names: Iterable<string>): string => [...names].map((n) => `\n  | '${n}'`).join('');

  return [
    `// Generated by packages/protocol/scripts/gen-lua.ts from lua/. Do not edit: change the .lua files and run`,
    `// \`${REGENERATE}\` (the build runs it too).`,
    `import type { LuaScriptSource } from '../source.js';`,
    ``,
    `/** Echo's \`@include\` libraries (\`lua/lib\`), by name. */`,
    `export const LUA_LIBS: Readonly<Record<string, string>> = {`,
    record(libs),
    `};`,
    ``,
    `/** The name of one strict-mode file (\`lua/strict\`). */`,
    `export type LuaStrictName =${union(strict.keys())};`,
    ``,
    `/** The strict-mode preludes, by name. */`,
    `export const LUA_STRICT: Readonly<Record<LuaStrictName, string>> = {`,
    record(strict),
    `};`,
    ``,
    `/** The name of one protocol transition: a transition file (\`lua/*.lua\`). */`,
    `export type ScriptName =${union(scripts.keys())};`,
    ``,
    `/** Every transition's name, in code-unit order. */`,
    `export const LUA_SCRIPT_NAMES: readonly ScriptName[] = [${[...scripts.keys()].map((n) => `'${n}'`).join(', ')}];`,
    ``,
    `/** Every transition, by script name, with the SHA of its composed source. */`,
    `export const LUA_SCRIPTS: Readonly<Record<ScriptName, LuaScriptSource>> = {`,
    ...entries,
    `};`,
    ``,
    `/** The Redis commands each transition can call (its body and the library code it reaches), in ACL spelling. */`,
    `export const LUA_SCRIPT_COMMANDS: Readonly<Record<ScriptName, readonly string[]>> = {`,
    ...commands,
    `};`,
    ``,
    `/** The transitions each pillar runs: those its module in src/transitions binds (streams: bus, cache: cache). */`,
    `export const LUA_PILLAR_SCRIPTS: Readonly<Record<'queue' | 'bus' | 'cache', readonly ScriptName[]>> = {`,
    ...Object.entries(byPillar).map(([p, names]) => `  ${p}: [${names.map((n) => `'${n}'`).join(', ')}],`),
    `};`,
    ``,
  ].join('\n');
}

function main(argv: readonly string[]): number {
  return writeGenerated(GENERATED_FILE, renderLuaModule(), REGENERATE, argv);
}

const invoked = process.argv[1];
if (invoked !== undefined && import.meta.url === pathToFileURL(invoked).href) process.exitCode = main(process.argv.slice(2));
