import { checkConnectionChoice, type ConnectOptions, Connection, InvalidArgumentError } from '@echo/protocol/cache';
import { CacheExistsError, NamespaceOptionsError, NoSuchCacheError } from './base/errors.js';
import { type TableSettings, type TableSpec, resolveSpec } from './tables/spec.js';
import { Namespace } from './keyed/namespace.js';
import { type NamespaceOptions, type ResolvedNamespace, resolveNamespace } from './keyed/options.js';
import { differingOption } from './keyed/same-options.js';
import { checkOpen } from './base/option-checks.js';
import { Table } from './tables/table.js';

/** Options for a {@link Cache}. */
export interface CacheOptions {
  /** Monotonic milliseconds for L1 expiry; default `performance.now()`. Injectable for tests. */
  readonly now?: () => number;
  /** Uniform in `[0, 1)` for expiry jitter; default `Math.random`. Injectable for tests. */
  readonly random?: () => number;
  /** Unix milliseconds for keyed namespaces; default `Date.now`. Injectable for tests. */
  readonly wallNow?: () => number;
}

/** {@link Cache.open}'s options: where the connection comes from, and the directory's own options. */
export interface CacheOpenOptions extends CacheOptions {
  /** An open connection to share; the cache does not close it. */
  readonly connection?: Connection;
  /** A URL or connection options: the cache connects, and {@link Cache.close} closes that connection. */
  readonly connect?: string | ConnectOptions;
}

/** Proves a construction came through {@link Cache.open}. */
const OPENING = Symbol('Cache.open');

interface OpenNamespace {
  readonly resolved: ResolvedNamespace<unknown>;
  readonly handle: Promise<Namespace<never>>;
}

/**
 * The process's cache directory (cache.md §1): every table is declared here with its full spec,
 * listed while it runs, and removed when it stops. A call for a name that was never declared fails
 * with {@link NoSuchCacheError}: tables are declared, not discovered.
 *
 * Open one with {@link Cache.open}. {@link close} stops the tables and namespaces and the connections
 * their lanes opened; it closes the connection only when `Cache.open` made it (`connect`).
 *
 * @example
 * ```ts
 * const cache = await Cache.open({ connect: 'redis://127.0.0.1:6379' });
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
  // A namespace asked for again with the same options gets the handle of the first request, even
  // while that one is still opening.
  readonly #namespaces = new Map<string, OpenNamespace>();
  readonly #ownsConnection: boolean;
  /** Wall-clock ms for keyed namespaces, whose expiry is shared with L2 frames. */
  readonly #wallNow: () => number;
  #closed = false;

  private constructor(token: unknown, connection: Connection, ownsConnection: boolean, options: CacheOptions) {
    // Plain JavaScript can still call `await Cache.open({ connection: url })`: point it at the one way to open.
    if (token !== OPENING) throw new InvalidArgumentError('new Cache', "is not how a cache opens; use await Cache.open({ connect: 'redis://...' }) or Cache.open({ connection })");
    this.#ownsConnection = ownsConnection;
    this.#connection = connection;
    this.#now = options.now ?? (() => performance.now());
    this.#random = options.random ?? Math.random;
    this.#wallNow = options.wallNow ?? Date.now;
  }

  /**
   * Opens a cache directory over a shared connection (`connection`) or one of its own (`connect`:
   * a URL or connection options; `close()` then closes it). With neither, it connects to the
   * connector's default (`redis://127.0.0.1:6379`).
   *
   * @throws UnknownOptionError for a key that is not an option (with a hint for bentocache's names);
   *   or for a `connection` that is not an open Connection (a URL or `{ host, port }` goes in `connect`);
   *   InvalidArgumentError for both `connection` and `connect`, or a bad clock.
   */
  static async open(options: CacheOpenOptions = {}): Promise<Cache> {
    const raw: unknown = options;
    if (typeof raw === 'string') throw new InvalidArgumentError('Cache.open options', `must be an object: Cache.open({ connect: ${JSON.stringify(raw)} })`);
    if (typeof raw !== 'object' || raw === null) throw new InvalidArgumentError('Cache.open options', 'must be an object');
    checkOpen(options);
    // Duck-typed, not instanceof: two copies of the protocol package may share a process.
    checkConnectionChoice('Cache.open options', options);
    const { connection, connect, ...rest } = options;
    // Checked before connecting, so a bad clock leaves no connection behind.
    for (const field of ['now', 'random', 'wallNow'] as const) {
      if (rest[field] !== undefined && typeof rest[field] !== 'function') throw new InvalidArgumentError(field, 'must be a function');
    }
    if (connection !== undefined) return new Cache(OPENING, connection, false, rest);
    return new Cache(OPENING, await Connection.connect(connect ?? {}), true, rest);
  }

  /**
   * Opens a keyed namespace ([TS]): any string key, `get`/`set`/`getOrSet`/`delete`/tags, writes that
   * carry their own coherence, and one load per key across processes. The value type comes from the
   * codec or is given: `cache.namespace<User>({ name: 'users' })`.
   *
   * Asked for again with the same options (after defaults; a codec is the same only when it is the
   * same object), it answers the same handle, which is shared: stopping it stops it for every holder.
   *
   * @throws InvalidNameError, UnknownOptionError, InvalidArgumentError for a bad option;
   *   NamespaceOptionsError for a name already open here with different options.
   */
  async namespace<T>(options: NamespaceOptions<T>): Promise<Namespace<T>> {
    if (this.#closed) throw new InvalidArgumentError('cache', 'is closed');
    const resolved = resolveNamespace(options);
    const open = this.#namespaces.get(resolved.name);
    if (open !== undefined) {
      const differs = differingOption(open.resolved, resolved);
      if (differs !== undefined) throw new NamespaceOptionsError(resolved.name, differs);
      // Same options, same codec: the handle was opened for this value type.
      return open.handle as unknown as Promise<Namespace<T>>;
    }
    const handle = Namespace.open(resolved, { connection: this.#connection, now: this.#wallNow, onStop: (name) => this.#namespaces.delete(name) });
    const entry: OpenNamespace = { resolved, handle: handle as unknown as Promise<Namespace<never>> };
    this.#namespaces.set(resolved.name, entry);
    // A failed open leaves the name free for the next request.
    handle.catch(() => {
      if (this.#namespaces.get(resolved.name) === entry) this.#namespaces.delete(resolved.name);
    });
    return handle;
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

  /** The connection this directory speaks through. */
  get connection(): Connection {
    return this.#connection;
  }

  /**
   * Stops every table and namespace, including those still starting; later declarations are
   * refused. Closes the connection when `Cache.open` made it. Idempotent.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // A table still starting joins the directory before this wait ends, so it is stopped below.
    await Promise.allSettled(this.#starting.values());
    const namespaces = await Promise.allSettled(Array.from(this.#namespaces.values(), (ns) => ns.handle));
    await Promise.all([
      ...Array.from(this.#tables.values(), (table) => table.close()),
      ...namespaces.flatMap((ns) => (ns.status === 'fulfilled' ? [ns.value.close()] : [])),
    ]);
    if (this.#ownsConnection) await this.#connection.close();
  }
}
