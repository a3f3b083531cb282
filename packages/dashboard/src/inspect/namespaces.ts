import { assertCacheTable, cacheEntryKey, cacheTagKey, parseKey, reads, type Connection } from '@echo/protocol/extend';
import { Cache, type Namespace } from '@echo/cache';
import { scanKeys } from './discover.js';

/** A keyed cache namespace as the server holds it. */
export interface NamespaceRef {
  /** The namespace's name (its L2 hashtag). */
  readonly name: string;
  /** Entries in L2. */
  readonly entries: number;
  /** Tags with at least one entry. */
  readonly tags: number;
}

/** The counters of a namespace a process keeps (a subset of `@echo/cache`'s `NamespaceStats`). */
export interface NamespaceCounters {
  /** Reads answered by L1. */
  readonly hits: number;
  /** Reads L1 could not answer (L2 or the factory did). */
  readonly misses: number;
  /** Misses L2 answered. */
  readonly l2Hits: number;
  /** Entries in L1. */
  readonly size: number;
}

/**
 * A keyed namespace of the process serving the dashboard, for its hit ratio: an `@echo/cache`
 * `Namespace` fits as it is.
 */
export interface NamespaceStatsSource {
  /** The namespace's name. */
  readonly name: string;
  /** Its counters now. */
  stats(): NamespaceCounters;
}

/** A namespace as the dashboard lists it: the server's figures, and this process's when handed in. */
export interface NamespaceView extends NamespaceRef {
  /** This process's counters and hit ratios; `null` for a namespace only seen on the server. */
  readonly local: (NamespaceCounters & { readonly hitRatio: number | null; readonly l2HitRatio: number | null }) | null;
}

/** One L2 entry of a namespace. */
export interface NamespaceEntry {
  /** The entry's key, as the app wrote it. */
  readonly key: string;
  /** Ms until L2 drops it (its fresh life plus grace); `null` for no expiry. */
  readonly ttlMs: number | null;
}

/** A page of a namespace's entries and its tags. */
export interface NamespaceEntries {
  /** The namespace's name. */
  readonly name: string;
  /** Entries found, sorted by key; the page is `offset`..`offset + limit` of them. */
  readonly total: number;
  /** Index of the page's first entry. */
  readonly offset: number;
  /** The page, by key. */
  readonly entries: NamespaceEntry[];
  /** Each tag with the number of entries written with it. */
  readonly tags: { readonly tag: string; readonly entries: number }[];
}

/** The keyed namespaces with entries or tags on the server (SCAN over every master), sorted by name. */
export async function discoverNamespaces(conn: Connection): Promise<NamespaceRef[]> {
  const found = new Map<string, { entries: number; tags: number }>();
  const [entries, tags] = await Promise.all([scanKeys(conn, 'ecc:{*}:k:*'), scanKeys(conn, 'ecc:{*}:tag:*')]);
  for (const key of [...entries, ...tags]) {
    const parsed = parseKey(key);
    if (parsed.kind !== 'cacheEntry' && parsed.kind !== 'cacheTag') continue;
    const ns = found.get(parsed.table) ?? { entries: 0, tags: 0 };
    if (parsed.kind === 'cacheEntry') ns.entries++;
    else ns.tags++;
    found.set(parsed.table, ns);
  }
  return [...found].map(([name, n]) => ({ name, ...n })).sort((a, b) => a.name.localeCompare(b.name));
}

function ratio(part: number, whole: number): number | null {
  return whole === 0 ? null : Math.round((part / whole) * 1000) / 1000;
}

/** Joins the namespaces seen on the server with the process's own. */
export function namespaceViews(server: readonly NamespaceRef[], local: readonly NamespaceStatsSource[] = []): NamespaceView[] {
  const views = new Map<string, NamespaceView>(server.map((ref) => [ref.name, { ...ref, local: null }]));
  for (const source of local) {
    const { hits, misses, l2Hits, size } = source.stats();
    const seen = views.get(source.name);
    views.set(source.name, {
      name: source.name,
      entries: seen?.entries ?? 0,
      tags: seen?.tags ?? 0,
      local: { hits, misses, l2Hits, size, hitRatio: ratio(hits, hits + misses), l2HitRatio: ratio(l2Hits, misses) },
    });
  }
  return [...views.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * One page of a namespace's L2 entries (by key) with their time to live, and its tags with their
 * sizes. The entries come from a SCAN of the namespace's pattern, so the read grows with the
 * keyspace: an operator's page, not a hot path.
 * @throws InvalidNameError for a bad namespace name.
 */
export async function namespaceEntries(conn: Connection, name: string, page: { offset?: number; limit?: number } = {}): Promise<NamespaceEntries> {
  assertCacheTable(name);
  const offset = page.offset ?? 0;
  const limit = page.limit ?? 50;
  const prefix = `ecc:{${name}}:`;
  const [entryKeys, tagKeys] = await Promise.all([scanKeys(conn, `${prefix}k:*`), scanKeys(conn, `${prefix}tag:*`)]);
  const keys = entryKeys.map((k) => k.slice(prefix.length + 2)).sort();
  const shown = keys.slice(offset, offset + limit);
  const tagNames = tagKeys.map((k) => k.slice(prefix.length + 4)).sort();
  // One pipeline for both lists; a member that failed reads as gone (an entry) or empty (a tag).
  const [ttls, sizes] = await Promise.all([
    reads.sendReads(conn, shown.map((key) => reads.pttl({ key: cacheEntryKey(name, key) }))),
    reads.sendReads(conn, tagNames.map((tag) => reads.hlen({ key: cacheTagKey(name, tag) }))),
  ]);
  const entries: NamespaceEntry[] = [];
  shown.forEach((key, i) => {
    const ttl = ttls[i];
    if (ttl?.ok === true && ttl.value !== undefined) entries.push({ key, ttlMs: ttl.value });
  });
  const tags: { tag: string; entries: number }[] = [];
  tagNames.forEach((tag, i) => {
    const size = sizes[i];
    if (size?.ok === true && size.value > 0) tags.push({ tag, entries: size.value });
  });
  return { name, total: keys.length, offset, entries, tags };
}

/**
 * The deletes of a namespace, through `@echo/cache` so every process's L1 hears them (the coherence
 * log): one L2-only, log-silent handle per namespace on the dashboard's connection, opened on first
 * use.
 */
export class NamespaceWriter {
  readonly #conn: Connection;
  #cache: Promise<Cache> | undefined;

  constructor(conn: Connection) {
    this.#conn = conn;
  }

  async #namespace(name: string): Promise<Namespace<unknown>> {
    assertCacheTable(name);
    this.#cache ??= Cache.open({ connection: this.#conn });
    // No L1 and no log reader: this handle only deletes, and its deletes announce themselves.
    return (await this.#cache).namespace({ name, l1: false, coherence: false });
  }

  /** Deletes one entry (and announces it on the log); answers whether L2 held it. */
  async deleteKey(name: string, key: string): Promise<boolean> {
    return (await this.#namespace(name)).delete(key);
  }

  /** Deletes every entry written with `tag`; answers how many L2 held. */
  async deleteTag(name: string, tag: string): Promise<number> {
    return (await this.#namespace(name)).deleteByTag(tag);
  }

  /** Stops the handles (the connection stays open: it is the dashboard's). */
  async close(): Promise<void> {
    if (this.#cache !== undefined) await (await this.#cache).close();
  }
}
