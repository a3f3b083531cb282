import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * How a fenced block is treated, from its info string:
 * - ```ts            type-checked;
 * - ```ts run        type-checked, run against a throwaway server, its stdout compared with the
 *                    ```text block right after it;
 * - ```ts peer, ```ts nocheck, ```js, anything else: shown only (another library's code, a fragment).
 */
export type BlockMode = 'check' | 'run';

/** One TypeScript block of a Markdown file, with what the checker needs around it. */
export interface Block {
  /** The Markdown file, relative to the repository root. */
  readonly file: string;
  /** 1-based line of the block's first code line in that file. */
  readonly line: number;
  readonly mode: BlockMode;
  readonly code: string;
  /** Hidden setup from a `<!-- prelude: ... -->` comment right above the fence ('' when none). */
  readonly prelude: string;
  /** Line of the prelude comment's first code line (0 when none). */
  readonly preludeLine: number;
  /** For a `run` block: the ```text block that follows it (undefined when missing). */
  readonly expected?: string;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)\s*(.*)$/;
const PRELUDE_OPEN = /^\s*<!--\s*prelude:(.*)$/;

/** Splits a Markdown text into its TypeScript blocks (see {@link BlockMode}). */
export function extractBlocks(file: string, text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const open = FENCE.exec(lines[i] ?? '');
    if (open === null) {
      i++;
      continue;
    }
    const fence = open[2] ?? '```';
    const lang = (open[3] ?? '').toLowerCase();
    const flags = (open[4] ?? '').split(/\s+/).filter((f) => f !== '');
    const start = i + 1;
    let end = start;
    while (end < lines.length && !(lines[end] ?? '').trim().startsWith(fence)) end++;
    const body = lines.slice(start, end).join('\n');
    const mode = blockMode(lang, flags);
    if (mode !== undefined) {
      const prelude = preludeAbove(lines, i);
      const expected = mode === 'run' ? textBlockAfter(lines, end + 1) : undefined;
      blocks.push({
        file,
        line: start + 1,
        mode,
        code: body,
        prelude: prelude?.code ?? '',
        preludeLine: prelude?.line ?? 0,
        ...(expected === undefined ? {} : { expected }),
      });
    }
    i = end + 1;
  }
  return blocks;
}

function blockMode(lang: string, flags: readonly string[]): BlockMode | undefined {
  if (lang !== 'ts' && lang !== 'typescript') return undefined;
  if (flags.includes('peer') || flags.includes('nocheck')) return undefined;
  return flags.includes('run') ? 'run' : 'check';
}

/** The `<!-- prelude: ... -->` comment ending on the line above `fenceLine` (blank lines allowed between). */
function preludeAbove(lines: readonly string[], fenceLine: number): { code: string; line: number } | undefined {
  let j = fenceLine - 1;
  while (j >= 0 && (lines[j] ?? '').trim() === '') j--;
  if (j < 0 || !(lines[j] ?? '').trimEnd().endsWith('-->')) return undefined;
  let k = j;
  while (k >= 0 && !PRELUDE_OPEN.test(lines[k] ?? '')) {
    if (k < j && (lines[k] ?? '').includes('-->')) return undefined;
    k--;
  }
  if (k < 0) return undefined;
  const text = lines.slice(k, j + 1).join('\n');
  const code = text.replace(/^\s*<!--\s*prelude:/, '').replace(/-->\s*$/, '');
  return { code, line: k + 1 };
}

/** The body of the ```text block that starts after `from` (blank lines allowed before it). */
function textBlockAfter(lines: readonly string[], from: number): string | undefined {
  let j = from;
  while (j < lines.length && (lines[j] ?? '').trim() === '') j++;
  const open = FENCE.exec(lines[j] ?? '');
  if (open?.[3] !== 'text') return undefined;
  const fence = open[2] ?? '```';
  let end = j + 1;
  while (end < lines.length && !(lines[end] ?? '').trim().startsWith(fence)) end++;
  return lines.slice(j + 1, end).join('\n');
}

const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', '.turbo', '.vitepress', 'coverage', '.blocks', 'api', 'results']);

/**
 * The Markdown files whose blocks are checked: every `README.md` of the repository, and every page
 * under `docs/` (the generated API reference excluded). CHANGELOGs quote history, not examples.
 */
export function markdownFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, docs: boolean): void => {
    for (const name of readdirSync(dir).sort()) {
      if (SKIP_DIRS.has(name)) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        walk(path, docs || relative(root, path) === 'docs');
      } else if (name === 'README.md' || (docs && name.endsWith('.md'))) {
        found.push(relative(root, path));
      }
    }
  };
  walk(root, false);
  return found;
}

/** Every checked block of every file {@link markdownFiles} lists. */
export function collectBlocks(root: string): Block[] {
  return markdownFiles(root).flatMap((file) => extractBlocks(file, readFileSync(join(root, file), 'utf8')));
}
