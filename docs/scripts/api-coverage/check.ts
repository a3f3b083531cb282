/**
 * The docs coverage check: every verb and option name of the published API (see `names.ts`) is named
 * in a guide page (not the generated API reference) or listed in `docs/coverage-allowlist.json` with
 * the reason it is not. `test/coverage.test.ts` runs it in `pnpm test`; `pnpm --filter @echo/docs
 * run coverage` prints the names left out.
 *
 * Naming counts anywhere on a page, prose or code block, as a whole word (`ttl` is not found in
 * `ttlMs`). The allowlist keys are `<report>:<Owner.member>`, `<report>:<function>` or
 * `<report>:<Owner>.*` (every member of one type), each with a reason of at least a few words.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { apiNames, type ApiName } from './names.js';

/** The guide pages: every Markdown page of the docs site except the generated reference and the page about writing docs. */
export function guidePages(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', 'api', '.vitepress', '.blocks', 'scripts', 'test'].includes(entry.name)) continue;
      const p = join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.name.endsWith('.md') && entry.name !== 'CONTRIBUTING.md') out.push(p);
    }
  };
  walk(join(root, 'docs'));
  return out.sort();
}

/** The allowlist: key to reason. */
export function readAllowlist(root: string): Record<string, string> {
  const file = join(root, 'docs', 'coverage-allowlist.json');
  if (!existsSync(file)) return {};
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const [key, reason] of Object.entries(raw)) {
    if (key.startsWith('$')) continue; // "$comment"
    if (typeof reason !== 'string' || reason.trim().split(/\s+/).length < 3) {
      throw new Error(`docs/coverage-allowlist.json: '${key}' needs a reason (a few words saying why no guide names it)`);
    }
    out[key] = reason;
  }
  return out;
}

/** What the check found. */
export interface CoverageReport {
  /** Names no guide page names and no allowlist entry covers. */
  readonly undocumented: readonly ApiName[];
  /** Allowlist keys that match no name of the reports any more (a rename or removal left them behind). */
  readonly stale: readonly string[];
  /** Allowlist keys for names a guide page now names (the entry can go). */
  readonly redundant: readonly string[];
  readonly total: number;
  readonly pages: number;
}

/** A page's text with its VitePress includes (`<!--@include: path{from,to}-->`) expanded, as the site shows it. */
export function pageText(file: string): string {
  return readFileSync(file, 'utf8').replace(/<!--@include:\s*([^{\s]+?)(?:\{[^}]*\})?\s*-->/g, (_all, target: string) => {
    const path = resolve(dirname(file), target);
    return existsSync(path) ? readFileSync(path, 'utf8') : '';
  });
}

export function checkCoverage(root: string, names: readonly ApiName[] = apiNames(root), allow: Readonly<Record<string, string>> = readAllowlist(root)): CoverageReport {
  const pages = guidePages(root);
  const text = pages.map(pageText).join('\n');
  const words = new Set(text.match(/[A-Za-z_$][\w$]*/g) ?? []);
  const named = (n: ApiName): boolean => words.has(n.name);
  const keyOf = (n: ApiName): string => `${n.report}:${n.qualified}`;
  const covers = (key: string, n: ApiName): boolean => {
    if (key === keyOf(n)) return true;
    if (key.endsWith('.*')) return `${n.report}:${n.qualified}`.startsWith(key.slice(0, -1));
    if (key.endsWith(':*')) return n.report === key.slice(0, -2);
    return false;
  };
  const keys = Object.keys(allow);
  const undocumented = names.filter((n) => !named(n) && !keys.some((k) => covers(k, n)));
  const stale = keys.filter((k) => !names.some((n) => covers(k, n)));
  const redundant = keys.filter((k) => !k.endsWith('*') && names.some((n) => covers(k, n)) && names.filter((n) => covers(k, n)).every(named));
  return { undocumented, stale, redundant, total: names.length, pages: pages.length };
}

/** The report as lines a person acts on. */
export function describe(report: CoverageReport, root: string): string[] {
  const lines = [`coverage: ${String(report.total)} names, ${String(report.undocumented.length)} undocumented, read against ${String(report.pages)} guide pages under ${relative(process.cwd(), join(root, 'docs')) || 'docs'}`];
  for (const n of report.undocumented) lines.push(`  undocumented ${n.kind} ${n.report}:${n.qualified} (name \`${n.name}\` in a guide page, or allowlist it with a reason)`);
  for (const k of report.stale) lines.push(`  stale allowlist entry ${k}: no such name in the API reports any more`);
  for (const k of report.redundant) lines.push(`  redundant allowlist entry ${k}: a guide page names it now`);
  return lines;
}

if (process.argv[1]?.endsWith('check.ts') === true) {
  const root = join(import.meta.dirname, '..', '..', '..');
  const report = checkCoverage(root);
  for (const line of describe(report, root)) console.log(line);
  process.exitCode = report.undocumented.length + report.stale.length > 0 ? 1 : 0;
}
