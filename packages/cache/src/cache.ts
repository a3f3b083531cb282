import { type Connection, InvalidArgumentError } from '@echo/protocol';
import { CacheExistsError, NoSuchCacheError } from './errors.js';
import { type TableSettings, type TableSpec, resolveSpec } from './spec.js';
import { Namespace } from './keyed/namespace.js';
import { type NamespaceOptions, resolveNamespace } from './keyed/options.js';
import { Table } from './table.js';

/** Options for a {@link Cache}. */
export interface CacheOptions {
  /** Monotonic milliseconds for L1 expiry; default `performance.now()`. Injectable for tests. */
  readonly now?: () => number;
  /** Uniform in `[0, 1)` for expiry jitter; default `Math.random`. Injectable for tests. */
  readonly random?: () => number;
  /** Unix milliseconds for keyed namespaces; default `Date.now`. Injectable for tests. */
  readonly wallNow?: () => number;
}

/**
 * The process's cache directory (cache.md §1): every table is declared here with its full spec,
 * listed while it runs, and removed when it stops. A call for a name that was never declared fails
 * with {@link NoSuchCacheError}: tables are declared, not discovered.
 *
 * The directory does not own its connection: {@link close} stops the tables and the connections
 * their lanes opened, and leaves the caller's connection open.
 *
 * @example
 * ```ts
 * const cache = new Cache(connection);
 * const users = await cache.declare({ name: 'users', kind: 'USR', loader: (id) => db.user(id) });
 * const { value, source } = await users.fetch(userId);
 * ```
 */
export class Cache {
  readonly #connection: Connection;
  readonly #now: () => number;
  readonly #random: () => number;
  // Held without their type parameters, which exist only at compile time.
  readonly #tables = new Map<string, Table<never>>();
  // Tables being started, so two concurrent declarations of one name cannot both succeed and a
  // close can wait for them.
  readonly #starting = new Map<string, Promise<unknown>>();
  readonly #namespaces = new Map<string, Namespace<never>>();
  /** Wall-clock ms for keyed namespaces, whose expiry is shared with L2 frames. */
  readonly #wallNow: () => number;
  #closed = false;

  /** @throws InvalidArgumentError when `now` or `random` is given but is not a function. */
  constructor(connection: Connection, options: CacheOptions = {}) {
    if (options.now !== undefined && typeof options.now !== 'function') throw new InvalidArgumentError('now', 'must be a function');
    if (options.random !== undefined && typeof options.random !== 'function') throw new InvalidArgumentError('random', 'must be a function');
    this.#connection = connection;
    this.#now = options.now ?? (() => performance.now());
    this.#random = options.random ?? Math.random;
    if (options.wallNow !== undefined && typeof options.wallNow !== 'function') throw new InvalidArgumentError('wallNow', 'must be a function');
    this.#wallNow = options.wallNow ?? Date.now;
  }

  /**
   * Opens a keyed namespace ([TS]): any string key, `get`/`set`/`getOrSet`/`delete`/tags, writes that
   * carry their own coherence, and one load per key across processes. The value type comes from the
   * codec or is given: `cache.namespace<User>({ name: 'users' })`.
   *
   * @throws InvalidNameError, InvalidArgumentError for a bad option; CacheExistsError for a name
   *   already open in this directory.
   */
  async namespace<T>(options: NamespaceOptions<T>): Promise<Namespace<T>> {
    if (this.#closed) throw new InvalidArgumentError('cache', 'is closed');
    const resolved = resolveNamespace(options);
    const slot = `ns:${resolved.name}`;
    if (this.#namespaces.has(resolved.name) || this.#starting.has(slot)) throw new CacheExistsError(resolved.name);
    const opening = Namespace.open(resolved, { connection: this.#connection, now: this.#wallNow, onStop: (name) => this.#namespaces.delete(name) });
    this.#starting.set(slot, opening);
    try {
      const ns = await opening;
      this.#namespaces.set(resolved.name, ns as unknown as Namespace<never>);
      return ns;
    } finally {
      this.#starting.delete(slot);
    }
  }

  /**
   * Declares and starts a table. The value type `T` is inferred from the loader (or given), and
   * the kind `K` from the `kind` literal, so the handle is typed end to end.
   *
   * @throws InvalidNameError, InvalidArgumentError for a bad spec field; CacheExistsError for a
   *   name already declared; TrackingArmError when a tracking lane cannot be armed.
   */
  async declare<T, K extends string = string>(spec: TableSpec<T, K>): Promise<Table<T, K>> {
    if (this.#closed) throw new InvalidArgumentError('cache', 'is closed');
    const resolved = resolveSpec(spec);
    if (this.#tables.has(resolved.name) || this.#starting.has(resolved.name)) throw new CacheExistsError(resolved.name);
    const opening = Table.open(resolved, {
      connection: this.#connection,
      now: this.#now,
      random: this.#random,
      onStop: (name) => this.#tables.delete(name),
    });
    this.#starting.set(resolved.name, opening);
    try {
      const table = await opening;
      this.#tables.set(resolved.name, table as unknown as Table<never>);
      return table;
    } finally {
      this.#starting.delete(resolved.name);
    }
  }

  /**
   * The handle of a declared table. `T` and `K` are the caller's assertion: the directory keeps no
   * types at run time, so prefer the handle `declare` returned.
   *
   * @throws NoSuchCacheError when no running table has this name.
   */
  table<T = unknown, K extends string = string>(name: string): Table<T, K> {
    const table = this.#tables.get(name);
    if (table === undefined) throw new NoSuchCacheError(name);
    return table as unknown as Table<T, K>;
  }

  /** True when a table of this name is declared and running. */
  has(name: string): boolean {
    return this.#tables.has(name);
  }

  /** Every running table with its settings, in declaration order. */
  list(): TableSettings[] {
    return Array.from(this.#tables.values(), (table) => table.settings);
  }

  /**
   * Stops every table, including those still starting; later declarations are refused. Idempotent.
   */
  async close(): Promise<void> {
    this.#closed = true;
    // A table still starting joins the directory before this wait ends, so it is stopped below.
    await Promise.allSettled(this.#starting.values());
    await Promise.all([...Array.from(this.#tables.values(), (table) => table.stop()), ...Array.from(this.#namespaces.values(), (ns) => ns.stop())]);
  }
}
