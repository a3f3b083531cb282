/** A cell: numbers are right-aligned and grouped, `null`/`undefined` print as `-`. */
export type Cell = string | number | null | undefined;

function text(cell: Cell): string {
  if (cell === null || cell === undefined) return '-';
  return typeof cell === 'number' ? cell.toLocaleString('en') : cell;
}

/** A plain-text table with a header row; columns as wide as their widest cell. */
export function table(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const cells = rows.map((row) => row.map(text));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]?.length ?? 0)));
  const numeric = headers.map((_, i) => rows.some((row) => typeof row[i] === 'number') && rows.every((row) => typeof row[i] === 'number' || row[i] === null || row[i] === undefined));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, i) => (numeric[i] === true ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...cells.map(line)].join('\n') + '\n';
}

/** `key: value` lines, keys aligned. */
export function fields(pairs: readonly (readonly [string, Cell])[]): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${text(v)}`).join('\n') + '\n';
}

/** Pretty JSON with a trailing newline, for `--json`. */
export function json(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}

/** One line of at most `max` characters. */
export function clip(value: string | null, max: number): string | null {
  if (value === null) return null;
  const flat = value.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A UTC timestamp to the second, or `null`. */
export function when(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}
