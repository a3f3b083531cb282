/**
 * Runs after `changeset version` (`pnpm version-packages`) over every package's CHANGELOG.md:
 *
 * - entries within a section are put in the order their changesets were committed (the generator
 *   ends each entry's first line with `<!--order:SECONDS-->`), and the markers are removed;
 * - a version heading with nothing under it, which a fixed-group release writes for a package with
 *   no change of its own, gets a line that says so.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** An entry's first line: a top-level bullet whose line ends with the generator's marker. */
const MARK = / ?<!--order:(\d+)-->$/;
const NO_CHANGES = '- No changes of its own: released to keep the fixed group (@echo/protocol, queue, bus, cache, conformance) on one version.';

/** One section's entries, each a first line and its continuation lines, sorted by their marker. */
function sortEntries(lines: string[]): string[] {
  const entries: { order: number; lines: string[] }[] = [];
  const before: string[] = [];
  for (const line of lines) {
    const mark = line.startsWith('- ') ? MARK.exec(line) : null;
    if (mark) entries.push({ order: Number(mark[1]), lines: [line.slice(0, mark.index)] });
    else if (entries.length > 0) entries.at(-1)?.lines.push(line);
    else before.push(line);
  }
  if (entries.length === 0) return before;
  // Blank lines between entries were wherever changesets put them; a section gets one at its end.
  const trimmed = (lines: string[]): string[] => {
    const out = [...lines];
    while (out.length > 0 && (out.at(-1) ?? '').trim() === '') out.pop();
    return out;
  };
  // Array.prototype.sort is stable: entries from one commit keep their order.
  const sorted = entries.sort((a, b) => a.order - b.order).flatMap((e) => trimmed(e.lines));
  return [...before, ...sorted, ''];
}

export function tidy(text: string): string {
  const out: string[] = [];
  let section: string[] = [];
  const flush = (): void => {
    out.push(...sortEntries(section));
    section = [];
  };
  for (const line of text.split('\n')) {
    if (/^#{2,3} /.test(line)) {
      flush();
      out.push(line);
    } else {
      section.push(line);
    }
  }
  flush();
  // A `## version` followed (after blank lines) by another `## ` heading or the end is empty.
  const lines = out;
  const filled: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    filled.push(line);
    if (!line.startsWith('## ')) continue;
    let j = i + 1;
    while (j < lines.length && (lines[j] ?? '').trim() === '') j++;
    if (j === lines.length || (lines[j] ?? '').startsWith('## ')) filled.push('', NO_CHANGES);
  }
  return filled.join('\n');
}

const packages = join(root, 'packages');
for (const name of readdirSync(packages)) {
  const file = join(packages, name, 'CHANGELOG.md');
  if (!existsSync(file)) continue;
  const text = readFileSync(file, 'utf8');
  const tidied = tidy(text);
  if (tidied !== text) writeFileSync(file, tidied);
}
