/**
 * Generated facts: text in the README and the docs that states what the code answers (the
 * least-privilege ACL lines, which packages bring which) lives between marker comments
 *
 *   <!-- generated:NAME -->
 *   ...
 *   <!-- /generated:NAME -->
 *
 * and is written by `pnpm --filter @echo/docs run gen` from the code itself. `test/generated.test.ts`
 * fails when a block differs from what the code answers now, so a new command in a script or a new
 * dependency shows up in the docs or fails CI; nobody copies it by hand.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { busAclRules, cacheAclRules, queueAclRules } from '@echo/protocol';

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
}

/** What each published package is for, in the install table's words; a package missing here fails the generator. */
const PURPOSE: Readonly<Record<string, string>> = {
  queue: 'jobs and workers',
  bus: 'streams, consumer groups, lifecycle events',
  cache: 'a two-tier cache',
  bullmq: "BullMQ's API over Echo's queue (a drop-in for an app written for BullMQ)",
  otel: 'OpenTelemetry traces and metrics',
  dashboard: 'the web dashboard in your server',
  cli: 'the `emq` command line',
  testkit: 'real servers in your tests',
  conformance: 'the protocol conformance suite, for another implementation',
  protocol: 'the wire protocol alone (keys, scripts, typed reads), for an extension',
};

const ORDER = ['queue', 'bus', 'cache', 'bullmq', 'otel', 'dashboard', 'cli', 'testkit', 'conformance', 'protocol'];

function manifests(root: string): Map<string, Manifest> {
  const out = new Map<string, Manifest>();
  for (const dir of readdirSync(join(root, 'packages'))) {
    const file = join(root, 'packages', dir, 'package.json');
    if (!existsSync(file)) continue;
    const m = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
    if (m.private !== true && m.name === `@echo/${dir}`) out.set(dir, m);
  }
  return out;
}

/** Every `@echo/*` package `name` needs at run time (transitively), and its npm dependencies outside the scope. */
function needs(name: string, all: ReadonlyMap<string, Manifest>): { echo: string[]; npm: string[] } {
  const echo = new Set<string>();
  const visit = (n: string): void => {
    for (const dep of Object.keys(all.get(n)?.dependencies ?? {})) {
      if (!dep.startsWith('@echo/')) continue;
      const short = dep.slice('@echo/'.length);
      if (echo.has(short)) continue;
      echo.add(short);
      visit(short);
    }
  };
  visit(name);
  const m = all.get(name);
  const npm = [
    ...Object.keys(m?.dependencies ?? {}).filter((d) => !d.startsWith('@echo/')).map((d) => `\`${d}\``),
    ...Object.keys(m?.peerDependencies ?? {}).map((d) => `\`${d}\` (peer, yours to install)`),
  ];
  const rank = (n: string): number => (ORDER.includes(n) ? ORDER.indexOf(n) : ORDER.length);
  return { echo: [...echo].sort((a, b) => rank(a) - rank(b)), npm: npm.sort() };
}

/** The install page's table: what each published package is for, what it brings along, what it pulls from npm. */
export function installTable(root: string): string {
  const all = manifests(root);
  const rank = (n: string): number => (ORDER.includes(n) ? ORDER.indexOf(n) : ORDER.length);
  const names = [...all.keys()].sort((a, b) => rank(a) - rank(b));
  const rows = names.map((name) => {
    const purpose = PURPOSE[name];
    if (purpose === undefined) throw new Error(`docs/scripts/generated/facts.ts: say what @echo/${name} is for in PURPOSE`);
    const { echo, npm } = needs(name, all);
    const code = (xs: readonly string[]): string => xs.map((x) => `\`${x}\``).join(', ');
    return `| ${purpose} | \`${name}\` | ${code(echo)} | ${npm.join(', ')} |`;
  });
  return ['| you want | install | brings along | its own npm dependencies |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/**
 * The scripts Echo adds beyond the protocol's catalog: every `lua/` script whose header's `@purpose`
 * starts with `[TS]`, the cache's by prefix, as the mixed-fleet page lists them.
 */
export function extensionScripts(root: string): string {
  const dir = join(root, 'packages/protocol/lua');
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.lua') && /^-- @purpose \[TS\]/m.test(readFileSync(join(dir, f), 'utf8').split('\n').slice(0, 5).join('\n')))
    .map((f) => f.slice(0, -'.lua'.length))
    .sort();
  const own = names.filter((n) => !n.startsWith('cache_'));
  const cache = names.length - own.length;
  return `**Scripts** beyond the protocol's catalog: ${own.map((n) => `\`${n}\``).join(', ')}, and the ${cache} cache scripts (\`cache_*\`). Each runtime loads its own scripts by SHA1, so they never collide.`;
}

const acl = (user: string, rules: readonly string[]): string => ['```text', [`ACL SETUSER ${user} on >secret`, ...rules].join(' '), '```'].join('\n');

/** Every generated block by name. */
export function facts(root: string): Record<string, string> {
  return {
    'acl-queue': acl('orders', queueAclRules(['orders'])),
    'acl-bus': acl('orders-audit', busAclRules(['orders'])),
    'acl-cache': acl('users-cache', cacheAclRules(['users'])),
    'install-table': installTable(root),
    'extension-scripts': extensionScripts(root),
  };
}

const BLOCK = /<!-- generated:([a-z0-9-]+) -->\n([\s\S]*?)<!-- \/generated:\1 -->/g;

/** A file's generated blocks, rewritten from `values`; unknown names are an error. */
export function regenerate(text: string, values: Readonly<Record<string, string>>, file: string): string {
  return text.replace(BLOCK, (_all, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${file}: unknown generated block '${name}' (known: ${Object.keys(values).join(', ')})`);
    return `<!-- generated:${name} -->\n${value}\n<!-- /generated:${name} -->`;
  });
}

/** The files that may hold generated blocks: the root README, every package README and every docs page. */
export function factFiles(root: string): string[] {
  const out = [join(root, 'README.md')];
  for (const dir of readdirSync(join(root, 'packages'))) {
    const f = join(root, 'packages', dir, 'README.md');
    if (existsSync(f)) out.push(f);
  }
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', 'api', '.vitepress', '.blocks'].includes(entry.name)) continue;
      const p = join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.name.endsWith('.md')) out.push(p);
    }
  };
  walk(join(root, 'docs'));
  return out;
}
