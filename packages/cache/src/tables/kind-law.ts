import { type BrandedId, KindError, isBrandedId } from '@echo/protocol/cache';

/**
 * The kind law (cache.md §2): an id reaches neither tier unless it is exactly 14 bytes, starts with
 * the table's namespace and is a valid branded id. Every failure is a {@link KindError}, malformed
 * ids included, so callers handle one error for "this id does not belong here".
 */
export function checkKind<K extends string>(table: string, kind: K, id: unknown): BrandedId<K> {
  if (typeof id === 'string' && id.length === 14 && id.startsWith(kind) && isBrandedId(id)) return id as BrandedId<K>;
  throw new KindError(`cache table ${table} takes ${kind} ids, got ${show(id)}`);
}

function show(value: unknown): string {
  if (typeof value !== 'string') return value === null ? 'null' : typeof value;
  // Bounded, so a megabyte of garbage does not become a megabyte of error message.
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}
