/**
 * Derives the commands each pillar sends outside its scripts from the code that sends them, so the
 * ACL rules (src/acl.ts) follow the builders instead of a list kept beside them.
 *
 *   tsx scripts/gen-acl.ts           writes src/generated/host-commands.ts
 *   tsx scripts/gen-acl.ts --check   exits 1 when the committed module differs from the sources
 *
 * A command is declared where it is sent, in one of three forms the scan reads:
 * - a typed read or write names it as its literal first argument: `read('HGETALL', …)`,
 *   `write('XGROUP CREATE', …)` (a container command with its subcommand);
 * - the connector sends it on the socket by name: `client.call('EVALSHA', …)`, `node.command('INFO', …)`;
 * - the driver sends it for an option or a method the module uses, or a batch builds it as data: a
 *   `@sends CLIENT SETNAME` tag in a comment of that module.
 * A pillar's commands are those declared in the modules its subpath (`@echo/protocol/<pillar>`,
 * package.json `exports`) reaches through value imports: the builders its contract exposes, the
 * connector's own, the shared machinery (the stream cursor, the events listener). A type-only import
 * sends nothing and is not followed. A read or write whose command is not a literal stops the scan.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeGenerated } from './generated-file.js';

/** This package's `src/`. */
export const SRC_DIR = new URL('../src/', import.meta.url);
/** Where the generated module lives. */
export const GENERATED_FILE = new URL('../src/generated/host-commands.ts', import.meta.url);
/** The command that rewrites the module, for error messages. */
export const REGENERATE = 'pnpm --filter @echo/protocol run gen:acl';

/** The pillars, each with its subpath in package.json `exports`. */
export const PILLARS = ['queue', 'bus', 'cache'] as const;
/** One pillar. */
export type Pillar = (typeof PILLARS)[number];

/**
 * Redis commands whose ACL name carries their first argument (`xinfo|stream`, `client|id`): Redis's
 * own command table, not a list of what Echo sends.
 */
const CONTAINERS = new Set(['ACL', 'CLIENT', 'CLUSTER', 'COMMAND', 'CONFIG', 'FUNCTION', 'MEMORY', 'OBJECT', 'SCRIPT', 'XGROUP', 'XINFO']);

/** The modules that define the read and write factories: they pass a declared name through. */
const FACTORIES = new Set(['reads/read.ts', 'writes/write.ts']);

/** Locale-free order, so every machine writes the same bytes. */
function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `XINFO` + `STREAM` in ACL spelling: `xinfo|stream`; a plain command ignores `sub`. */
function aclName(name: string, sub: string | undefined, where: string): string {
  if (!CONTAINERS.has(name)) return name.toLowerCase();
  if (sub === undefined) throw new Error(`${where}: ${name} needs its subcommand as a literal (${name.toLowerCase()}|<sub> is what an ACL grants)`);
  return `${name}|${sub}`.toLowerCase();
}

/** The source without its comments (a `//` right after a colon or a quote is a URL or a string, kept). */
function code(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"\\])\/\/.*$/gm, '$1');
}

/**
 * The commands one module declares, in ACL spelling.
 *
 * @throws Error for a read or write whose command is not a literal, or a container without its subcommand.
 */
export function declaredCommands(source: string, file: string): string[] {
  const found = new Set<string>();
  const body = code(source);
  // Only a module that imports the factories builds typed reads and writes (elsewhere `read` is another name).
  const builds = FACTORIES.has(file) || /import\s*\{[^}]*\b(?:read|write)\b[^}]*\}\s*from\s*'[^']*\/(?:read|write)\.js'/.test(body);
  if (builds) {
    for (const m of body.matchAll(/(?<![\w.$#])(?:read|write)\(\s*'([A-Z]+)(?: ([A-Z]+))?'/g)) found.add(aclName(m[1] as string, m[2], file));
  }
  if (builds && !FACTORIES.has(file)) {
    for (const m of body.matchAll(/(?<![\w.$#])(?:read|write)\(\s*(?!')(\S[^,)]*)/g)) {
      throw new Error(`${file}: ${m[0].trim()}…: a read or write names its command as a literal, so the ACL generator sees it`);
    }
  }
  for (const m of body.matchAll(/\.(?:call|callBuffer|command|commandBuffer)\(\s*'([A-Z]+)'(?:\s*,\s*'([A-Z]+)')?/g)) {
    found.add(aclName(m[1] as string, m[2], file));
  }
  for (const m of source.matchAll(/@sends ([A-Z]+)(?: ([A-Z]+))?/g)) found.add(aclName(m[1] as string, m[2], file));
  return [...found].sort(byCodeUnit);
}

/** The `src/`-relative modules `file` imports for their values (`import type`/`export type` send nothing). */
export function valueImports(source: string, file: string): string[] {
  const out: string[] = [];
  const from = /^\s*(?:import|export)\s+(?!type\b)(?:[^;'"]*?\sfrom\s+)?'(\.{1,2}\/[^']+)'/gm;
  for (const m of code(source).matchAll(from)) {
    const target = new URL((m[1] as string).replace(/\.js$/, '.ts'), new URL(file, SRC_DIR));
    out.push(fileURLToPath(target).slice(fileURLToPath(SRC_DIR).length));
  }
  return out;
}

/** The source-condition entry of each pillar's subpath, from package.json `exports`. */
function pillarEntries(): Record<Pillar, string> {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { exports: Record<string, Record<string, string>> };
  const entry = (p: Pillar): string => {
    const source = pkg.exports[`./${p}`]?.['@echo/source'];
    if (source === undefined) throw new Error(`package.json: no "./${p}" export with an @echo/source entry`);
    return source.replace(/^\.\/src\//, '');
  };
  return { queue: entry('queue'), bus: entry('bus'), cache: entry('cache') };
}

/** Each command a pillar can send, with the modules that declare it. */
export function pillarCommands(read: (file: string) => string = (f) => readFileSync(new URL(f, SRC_DIR), 'utf8')): Record<Pillar, Map<string, string[]>> {
  const entries = pillarEntries();
  const result = {} as Record<Pillar, Map<string, string[]>>;
  for (const pillar of PILLARS) {
    const seen = new Set<string>();
    const queue = [entries[pillar]];
    const commands = new Map<string, string[]>();
    while (queue.length > 0) {
      const file = queue.pop() as string;
      if (seen.has(file)) continue;
      seen.add(file);
      const source = read(file);
      // The scripts' own commands come from their sources (LUA_SCRIPT_COMMANDS); their text is not code here.
      if (file.startsWith('scripts/generated/')) continue;
      for (const c of declaredCommands(source, file)) commands.set(c, [...(commands.get(c) ?? []), file]);
      queue.push(...valueImports(source, file));
    }
    result[pillar] = new Map([...commands].sort(([a], [b]) => byCodeUnit(a, b)).map(([c, files]) => [c, files.sort(byCodeUnit)]));
  }
  return result;
}

/** The generated module's text. */
export function renderCommandsModule(): string {
  const byPillar = pillarCommands();
  const lines = [
    `// Generated by scripts/gen-acl.ts from the commands declared in src/. Do not edit: run \`${REGENERATE}\`.`,
    '',
    '/**',
    ' * The commands each pillar sends outside its scripts, in ACL spelling: those declared by the modules',
    ' * its subpath reaches (its typed reads and writes, the connector, the shared readers). Each line',
    ' * names the modules that send it.',
    ' */',
    "export const HOST_COMMANDS: Readonly<Record<'queue' | 'bus' | 'cache', readonly string[]>> = {",
  ];
  for (const pillar of PILLARS) {
    lines.push(`  ${pillar}: [`);
    for (const [command, files] of byPillar[pillar]) lines.push(`    '${command}', // ${files.join(', ')}`);
    lines.push('  ],');
  }
  lines.push('};', '');
  return lines.join('\n');
}

function main(argv: readonly string[]): number {
  return writeGenerated(GENERATED_FILE, renderCommandsModule(), REGENERATE, argv);
}

const invoked = process.argv[1];
if (invoked !== undefined && import.meta.url === pathToFileURL(invoked).href) process.exitCode = main(process.argv.slice(2));
