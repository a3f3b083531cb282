/**
 * The Prometheus text exposition format (version 0.0.4), written by hand: it is a few lines of
 * escaping and ordering, and owning it keeps `prom-client` out of every app that only wants
 * `/metrics` (an app that already runs `prom-client` can feed these families to its own registry).
 */

/** The kinds of metric family the exposition writes. */
export type MetricType = 'counter' | 'gauge' | 'histogram';

/** Label names to values. */
export type Labels = Readonly<Record<string, string>>;

/** One sample: a value under labels. For a histogram, {@link HistogramValue}. */
export interface Sample {
  /** The sample's labels. */
  readonly labels: Labels;
  /** The sample's value. */
  readonly value: number;
}

/** A histogram's state under one label set: cumulative bucket counts, the sum and the count. */
export interface HistogramValue {
  /** The label set this histogram state is kept under. */
  readonly labels: Labels;
  /** Upper bounds, ascending; `+Inf` is implied. */
  readonly bounds: readonly number[];
  /** Observations at or below each bound (cumulative), same length as `bounds`. */
  readonly buckets: readonly number[];
  /** The sum of every observation. */
  readonly sum: number;
  /** How many observations there were. */
  readonly count: number;
}

/** A metric family: name, help, type and its samples. */
export type MetricFamily =
  | { readonly name: string; readonly help: string; readonly type: 'counter' | 'gauge'; readonly samples: readonly Sample[] }
  | { readonly name: string; readonly help: string; readonly type: 'histogram'; readonly samples: readonly HistogramValue[] };

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function escapeHelp(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function labelText(labels: Labels, extra?: readonly [string, string]): string {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  if (extra) pairs.push(`${extra[0]}="${escapeLabel(extra[1])}"`);
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

function num(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/**
 * Writes families in the text format, one `# HELP`/`# TYPE` header each, in the order given.
 * Families with no sample are left out, as Prometheus clients do.
 */
export function formatExposition(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    if (family.samples.length === 0) continue;
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    if (family.type === 'histogram') {
      for (const h of family.samples) {
        h.bounds.forEach((bound, i) => lines.push(`${family.name}_bucket${labelText(h.labels, ['le', num(bound)])} ${num(h.buckets[i] ?? 0)}`));
        lines.push(`${family.name}_bucket${labelText(h.labels, ['le', '+Inf'])} ${num(h.count)}`);
        lines.push(`${family.name}_sum${labelText(h.labels)} ${num(h.sum)}`, `${family.name}_count${labelText(h.labels)} ${num(h.count)}`);
      }
    } else {
      for (const s of family.samples) lines.push(`${family.name}${labelText(s.labels)} ${num(s.value)}`);
    }
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** The content type of {@link formatExposition}'s text, for the `/metrics` response. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
