import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A Markdown table; cells are used as they are. */
export function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Prints the report and writes it to `bench/results/<file>` (a gitignored folder). */
export function publish(file: string, markdown: string): string {
  const dir = new URL('../results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const path = fileURLToPath(new URL(file, dir));
  writeFileSync(path, `${markdown}\n`);
  process.stdout.write(`${markdown}\n`);
  return path;
}

/** Progress goes to stderr so stdout carries the report only. */
export function progress(text: string): void {
  process.stderr.write(`${text}\n`);
}
