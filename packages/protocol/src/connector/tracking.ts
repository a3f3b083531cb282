import { InvalidArgumentError } from '../errors/validation.js';
import { TypedEmitter, type Listener, type ListenerErrorHandler } from '../typed-emitter.js';
import type { PrepareIo, Wire } from './clients.js';
import type { Connection } from './connection.js';
import { checkNames } from './pub-sub.js';

/** The channel the server publishes redirected invalidations on. */
export const INVALIDATE_CHANNEL = '__redis__:invalidate';

/** What a {@link Tracking} reports. */
export interface TrackingEvents {
  /**
   * Keys under a tracked prefix were written (or expired, or evicted), by anyone. `null` means the
   * server dropped its whole tracking table (`FLUSHALL`, `FLUSHDB`, memory pressure): treat every
   * tracked key as changed.
   */
  readonly invalidate: readonly string[] | null;
  /**
   * Tracking is on again after a reconnect. Invalidations sent while the socket was down are lost,
   * so whatever was read before this moment may be stale. The payload counts arms, the first
   * (which happens before {@link openTracking} resolves) included.
   */
  readonly armed: number;
  /** The socket dropped: until the next `armed`, no invalidation can arrive. */
  readonly lost: undefined;
}

/** How {@link openTracking} opens its connection. */
export interface TrackingOptions {
  /** `CLIENT SETNAME` for the dedicated connection, to find it in `CLIENT LIST`. */
  readonly name?: string;
  /** Called with what a listener threw; without it, a throw is rethrown on a later tick. */
  readonly onListenerError?: ListenerErrorHandler;
}

/**
 * Creates a handle, how its dedicated connection differs from a plain one (RESP2, the arm step after
 * every fence, its messages and losses), and the hook that binds its close to it. The connector's
 * constructor, set once by the class's static block (it reaches the handle's private state); not
 * exported from the package: callers get a handle from {@link openTracking}.
 */
export let createTracking: (
  prefixes: readonly string[],
  onInvalidate: Listener<readonly string[] | null>,
  onListenerError?: ListenerErrorHandler,
) => [Tracking, Wire, (close: () => Promise<void>) => void];

/**
 * Opens a dedicated connection, with `connection`'s options, that reports every write under
 * `prefixes` by any client: server-assisted client-side caching in broadcast mode. `onInvalidate`
 * is in place before tracking is first turned on. After every reconnect the fence runs, then
 * tracking is turned on again, and the handle emits `armed`; invalidations sent while the socket
 * was down are lost, which its `lost` event announces. A free function of the cache's contract
 * rather than a method of every connection, so only the cache's ACL rules grant `CLIENT TRACKING`.
 *
 * @throws InvalidArgumentError on a cluster (tracking is per node: one connection cannot cover a
 *   prefix) or for an empty prefix list.
 * @throws a typed error (for example PermissionError) when the server refuses to turn tracking on.
 */
export async function openTracking(
  connection: Connection,
  prefixes: readonly string[],
  onInvalidate: (keys: readonly string[] | null) => void,
  options: TrackingOptions = {},
): Promise<Tracking> {
  if (connection.isCluster) throw new InvalidArgumentError('tracking', 'needs a standalone server: on a cluster, tracking is per node');
  checkNames('prefixes', prefixes);
  const [tracking, wire, bind] = createTracking(prefixes, onInvalidate, options.onListenerError);
  await connection.openWired(wire, options.name, bind);
  return tracking;
}

/**
 * Server-assisted client-side caching in broadcast mode (`CLIENT TRACKING ON BCAST PREFIX …`) on a
 * dedicated connection: any write under a tracked prefix, by any client, is reported as an
 * `invalidate` event.
 *
 * The server delivers invalidations either as RESP3 `invalidate` pushes or, with `REDIRECT`, as
 * messages on `__redis__:invalidate` to a subscribed RESP2 connection; its rule is the same for
 * both. The driver under the connector hands only pub/sub pushes to the application and discards
 * an `invalidate` push, so this connection speaks RESP2 and redirects to itself.
 *
 * After every (re)connect the version fence runs first, then tracking is turned on, then the
 * connection subscribes; only then is it `armed`.
 */
export class Tracking extends TypedEmitter<TrackingEvents> {
  /** The tracked key prefixes. */
  readonly prefixes: readonly string[];
  #close: () => Promise<void> = () => Promise.resolve();
  #armed = false;
  #arms = 0;
  #generation = 0;
  #closed = false;

  private constructor(prefixes: readonly string[], onListenerError?: ListenerErrorHandler) {
    super(onListenerError);
    this.prefixes = Object.freeze([...prefixes]);
  }

  static {
    createTracking = (prefixes, onInvalidate, onListenerError) => {
      const tracking = new Tracking(prefixes, onListenerError);
      tracking.on('invalidate', onInvalidate);
      const wire: Wire = {
        resp2: true,
        prepare: (io) => tracking.#arm(io),
        onLost: () => tracking.#lost(),
        sink: (channel, payload) => tracking.#receive(channel, payload),
      };
      return [tracking, wire, (close) => (tracking.#close = close)];
    };
  }

  /** Whether invalidations are being delivered now. */
  get armed(): boolean {
    return this.#armed;
  }

  /** How many times tracking was turned on. */
  get arms(): number {
    return this.#arms;
  }

  /** Closes the dedicated connection (tracking dies with it) and drops every listener. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#armed = false;
    this.removeAllListeners();
    await this.#close();
  }

  async #arm(io: PrepareIo): Promise<void> {
    const generation = this.#generation;
    const id = String(await io.call('CLIENT', 'ID'));
    await io.call('CLIENT', 'TRACKING', 'ON', 'REDIRECT', id, 'BCAST', ...this.prefixes.flatMap((p) => ['PREFIX', p]));
    // @sends SUBSCRIBE: the invalidation channel, on the RESP2 socket the tracking redirects to.
    await io.subscribe(INVALIDATE_CHANNEL);
    // A close during the arm means this arm's socket is gone; the next one arms again.
    if (generation !== this.#generation || this.#closed) return;
    this.#armed = true;
    this.emit('armed', ++this.#arms);
  }

  #lost(): void {
    this.#generation++;
    if (!this.#armed) return;
    this.#armed = false;
    this.emit('lost', undefined);
  }

  #receive(channel: string, payload: unknown): void {
    if (this.#closed || channel !== INVALIDATE_CHANNEL) return;
    if (payload === null || payload === undefined) {
      this.emit('invalidate', null);
      return;
    }
    const keys = (Array.isArray(payload) ? (payload as unknown[]) : [payload]).map((key) => (Buffer.isBuffer(key) ? key.toString() : String(key)));
    this.emit('invalidate', keys);
  }
}
