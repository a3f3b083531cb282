import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { checkStartLinkProxy } from './options.js';
import { LOOPBACK } from './ports.js';

/** What the proxy does with the bytes the target sends back to the connected side. */
export type LinkMode =
  /** Forwarded at once. */
  | { readonly kind: 'open' }
  /** Kept in the proxy, in order, until {@link LinkProxy.release} (or lost with the link). */
  | { readonly kind: 'hold' }
  /** Forwarded `ms` after they arrived, in order: a slow link. */
  | { readonly kind: 'lag'; readonly ms: number }
  /**
   * Dropped: a half-open link. What the client sends still reaches the target and runs there, but
   * no reply ever comes back and no reset tells the client so.
   */
  | { readonly kind: 'blackhole' }
  /** Dropped both ways: nothing the client sends reaches the target, nothing comes back. */
  | { readonly kind: 'partition' };

/** Options for {@link startLinkProxy}. */
export interface LinkProxyOptions {
  /** Where the proxy forwards to (a server's `host` and `port`). */
  readonly target: { readonly host: string; readonly port: number };
}

/** A TCP proxy on a loopback port in front of one server; see {@link startLinkProxy}. */
export interface LinkProxy {
  /** Always `127.0.0.1`. */
  readonly host: string;
  /** The proxy's own port: point the client (a replica's `--replicaof`) here. */
  readonly port: number;
  /** The current mode of the target-to-client direction. */
  readonly mode: LinkMode;
  /** Bytes held now (mode `hold`), over all connections. */
  readonly heldBytes: number;
  /** Open proxied connections. */
  readonly connections: number;
  /** Keeps what the target sends from now on (the client-to-target direction still flows). */
  hold(): void;
  /** Delays what the target sends by `ms` from now on; what is held is sent first. */
  lag(ms: number): void;
  /** Drops what the target sends from now on, without a reset: a half-open link (see {@link LinkMode}). */
  blackhole(): void;
  /** Drops what either side sends from now on, without a reset: a silent partition. */
  partition(): void;
  /**
   * Sends what is held and forwards at once, both ways, from now on. A connection that had bytes
   * dropped (blackhole, partition) is closed instead: TCP never resumes a stream with a hole in it,
   * so a real half-open socket ends in a reset, not in replies out of step.
   */
  release(): void;
  /**
   * Drops every proxied connection now; what is held is lost with them, as when the target dies
   * before sending it. New connections are accepted (and forwarded at once).
   */
  cut(): void;
  /** Drops every proxied connection and stops listening. Idempotent. */
  close(): Promise<void>;
}

interface Pair {
  readonly client: Socket;
  readonly upstream: Socket;
  held: Buffer[];
  /** Bytes on their way under `lag`, oldest first, each with the time it is due. */
  delayed: { readonly chunk: Buffer; readonly due: number }[];
  /** Bytes were dropped on this link: its byte stream has a hole TCP would never leave. */
  lost: boolean;
}

class TcpLinkProxy implements LinkProxy {
  readonly host = LOOPBACK;
  readonly #server: Server;
  readonly #pairs = new Set<Pair>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #mode: LinkMode = { kind: 'open' };
  #closed: Promise<void> | undefined;

  constructor(server: Server) {
    this.#server = server;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  get mode(): LinkMode {
    return this.#mode;
  }

  get heldBytes(): number {
    let bytes = 0;
    for (const pair of this.#pairs) for (const chunk of pair.held) bytes += chunk.length;
    return bytes;
  }

  get connections(): number {
    return this.#pairs.size;
  }

  accept(client: Socket, target: LinkProxyOptions['target']): void {
    client.on('error', () => undefined);
    const upstream = connect(target.port, target.host);
    upstream.on('error', () => undefined);
    const pair: Pair = { client, upstream, held: [], delayed: [], lost: false };
    this.#pairs.add(pair);
    client.on('data', (chunk: Buffer) => {
      if (this.#mode.kind !== 'partition') upstream.write(chunk);
      else pair.lost = true;
    });
    upstream.on('data', (chunk: Buffer) => this.#downstream(pair, chunk));
    const end = (): void => {
      // Bytes still held die with the link: the target that sent them is gone.
      pair.held = [];
      this.#pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
  }

  #downstream(pair: Pair, chunk: Buffer): void {
    const mode = this.#mode;
    if (mode.kind === 'open') pair.client.write(chunk);
    else if (mode.kind === 'hold') pair.held.push(chunk);
    else if (mode.kind === 'lag') this.#later(pair, chunk, mode.ms);
    // blackhole and partition: the bytes are gone, as on a link that lost them.
    else pair.lost = true;
  }

  #later(pair: Pair, chunk: Buffer, ms: number): void {
    pair.delayed.push({ chunk, due: Date.now() + ms });
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#deliverDue(pair);
    }, ms);
    this.#timers.add(timer);
  }

  /** Writes the delayed bytes that are due, strictly in arrival order (a later, shorter lag waits its turn). */
  #deliverDue(pair: Pair): void {
    if (!this.#pairs.has(pair)) return;
    const now = Date.now();
    while (pair.delayed.length > 0 && (pair.delayed[0] as Pair['delayed'][number]).due <= now) {
      pair.client.write((pair.delayed.shift() as Pair['delayed'][number]).chunk);
    }
  }

  /**
   * Ends the lag of what is on its way before the mode changes, so no byte overtakes another: it is
   * held with the rest (`toHeld`) or delivered now, and then what is held (when `flushHeld`).
   */
  #settle(toHeld: boolean, flushHeld: boolean): void {
    for (const pair of this.#pairs) {
      const delayed = pair.delayed.map((d) => d.chunk);
      pair.delayed = [];
      if (toHeld) pair.held = [...delayed, ...pair.held];
      else for (const chunk of delayed) pair.client.write(chunk);
      if (!flushHeld) continue;
      for (const chunk of pair.held) pair.client.write(chunk);
      pair.held = [];
    }
  }

  hold(): void {
    this.#settle(true, false);
    this.#mode = { kind: 'hold' };
  }

  lag(ms: number): void {
    if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError(`lag must be a whole number of ms >= 0, got ${String(ms)}`);
    this.#settle(false, true);
    this.#mode = { kind: 'lag', ms };
  }

  blackhole(): void {
    this.#settle(false, false);
    this.#mode = { kind: 'blackhole' };
  }

  partition(): void {
    this.#settle(false, false);
    this.#mode = { kind: 'partition' };
  }

  release(): void {
    // TCP never delivers a stream with a hole in it: a link that lost bytes ends (the reset a real
    // half-open socket meets at last) rather than resuming out of step.
    for (const pair of [...this.#pairs]) {
      if (!pair.lost) continue;
      this.#pairs.delete(pair);
      pair.client.destroy();
      pair.upstream.destroy();
    }
    this.#settle(false, true);
    this.#mode = { kind: 'open' };
  }

  cut(): void {
    for (const pair of [...this.#pairs]) {
      pair.held = [];
      pair.delayed = [];
      pair.client.destroy();
      pair.upstream.destroy();
    }
    this.#pairs.clear();
    this.#mode = { kind: 'open' };
  }

  close(): Promise<void> {
    this.#closed ??= new Promise((resolve) => {
      for (const timer of this.#timers) clearTimeout(timer);
      this.#timers.clear();
      for (const pair of this.#pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      this.#pairs.clear();
      this.#server.close(() => resolve());
    });
    return this.#closed;
  }
}

/**
 * Starts a TCP proxy on a free loopback port in front of `target`, whose target-to-client direction
 * can be held, slowed, blackholed or released, and which can drop both directions (a partition).
 * Point a client at it to see what a half-open link does to it. Put it between a primary and its replica
 * (`--replicaof 127.0.0.1 <proxy.port>`) to open the asynchronous replication window as wide as a
 * test needs: writes the primary acknowledged stay in the proxy, not on the replica, and `WAIT`
 * cannot count the replica until they are released. The replica's own acks flow through untouched.
 *
 * Close it when done; it holds a listening socket.
 */
export async function startLinkProxy(options: LinkProxyOptions): Promise<LinkProxy> {
  checkStartLinkProxy(options);
  const server = createServer();
  const proxy = new TcpLinkProxy(server);
  server.on('connection', (client) => proxy.accept(client, options.target));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return proxy;
}
