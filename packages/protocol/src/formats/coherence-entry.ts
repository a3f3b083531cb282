import { entryFields } from '../reads/stream-entries.js';

/** What a coherence log entry records: `s` set, `d` delete, `c` clear, `r` a lease released. */
export type CoherenceOp = 's' | 'd' | 'c' | 'r';

/**
 * One entry of a keyed namespace's coherence log `ecc:{<ns>}:log` [TS], as the cache scripts write it
 * (`cache_write`, `cache_delete`, `cache_tag_delete`, `cache_clear`, `cache_release`): fields
 * `v <version> o <op> k <keys joined by "\n">`.
 */
export interface CoherenceEntry {
  /** The stream id, `<ms>-<seq>`. */
  readonly id: string;
  /** The write's version; empty for a released lease. */
  readonly version: string;
  /** What the write did. */
  readonly op: CoherenceOp;
  /** The keys it names; none for a clear. */
  readonly keys: readonly string[];
}

const OPS: ReadonlySet<string> = new Set<CoherenceOp>(['s', 'd', 'c', 'r']);

function isOp(value: string): value is CoherenceOp {
  return OPS.has(value);
}

/**
 * Reads one coherence log entry from its field list; `undefined` when it is not one (no `o` field,
 * an op this build does not know, or no `v`/`k`): the reader cannot tell what it invalidates, so it
 * must treat its L1 as unknown, as after a gap.
 */
export function parseCoherenceEntry(id: string, fields: readonly string[]): CoherenceEntry | undefined {
  const f = entryFields(fields);
  const op = f.o;
  const version = f.v;
  const keys = f.k;
  if (op === undefined || !isOp(op) || version === undefined || keys === undefined) return undefined;
  return { id, version, op, keys: keys === '' ? [] : keys.split('\n') };
}
