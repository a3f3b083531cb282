import type { CacheTableRef } from './discover.js';

/** The counters of one table that a hit ratio needs (a subset of `@echo/cache`'s `CacheStats`). */
export interface CacheCounters {
  readonly hits: number;
  readonly misses: number;
  readonly fills: number;
  readonly l2Hits: number;
  readonly size: number;
}

/**
 * The cache directory of the process the dashboard runs in. An `@echo/cache` `Cache` fits as it is;
 * the dashboard asks for this shape rather than the class, so it does not depend on the cache.
 */
export interface CacheStatsSource {
  list(): readonly { readonly name: string; readonly kind: string }[];
  table(name: string): { stats(): CacheCounters };
}

/**
 * One cache table as the dashboard shows it. Hit counters live in the memory of the process that
 * reads through the table, not on the server; they are here only for tables of the `CacheStatsSource`
 * handed to the dashboard. From the server alone, a table is its L2 row count.
 */
export interface CacheTableView {
  readonly table: string;
  /** The table's id kind, when the table is declared in this process. */
  readonly kind: string | null;
  /** L2 rows on the server. */
  readonly l2Rows: number;
  /** In-process counters; `null` for a table only seen on the server. */
  readonly local: (CacheCounters & { readonly hitRatio: number | null; readonly l2HitRatio: number | null }) | null;
}

function ratio(part: number, whole: number): number | null {
  return whole === 0 ? null : Math.round((part / whole) * 1000) / 1000;
}

/** Joins the tables seen on the server with the process's own counters. */
export function cacheTableViews(server: readonly CacheTableRef[], source: CacheStatsSource | undefined): CacheTableView[] {
  const views = new Map<string, CacheTableView>();
  for (const ref of server) views.set(ref.table, { table: ref.table, kind: null, l2Rows: ref.rows, local: null });
  for (const settings of source?.list() ?? []) {
    const stats = source?.table(settings.name).stats();
    if (stats === undefined) continue;
    const { hits, misses, fills, l2Hits, size } = stats;
    views.set(settings.name, {
      table: settings.name,
      kind: settings.kind,
      l2Rows: views.get(settings.name)?.l2Rows ?? 0,
      // A miss is answered by L2 (l2Hits) or by the loader (fills); the L2 ratio is over the misses.
      local: { hits, misses, fills, l2Hits, size, hitRatio: ratio(hits, hits + misses), l2HitRatio: ratio(l2Hits, misses) },
    });
  }
  return [...views.values()].sort((a, b) => a.table.localeCompare(b.table));
}
