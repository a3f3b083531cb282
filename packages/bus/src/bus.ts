import {
  Connection,
  InvalidArgumentError,
  checkConnectionChoice,
  assertQueueName,
  queueKeys,
  resolveValueLimit,
  type ConnectOptions,
  type EventName,
  type JobId,
} from '@echo/protocol/bus';
import type { EvtMinter } from './core/context.js';
import { listen, type EventsListener, type ListenOptions } from './events/listener.js';
import { publish } from './events/publish.js';
import { ownHashtag } from './core/keys.js';
import { checkBusOptions } from './core/option-checks.js';
import { checkBusRetentionTarget } from './retention/option-checks.js';
import { RetentionDriver, type RetentionOptions, type RetentionWindow } from './retention/retention.js';
import { Stream } from './stream.js';
import type { StreamOptions } from './stream-options.js';

/** How {@link Bus.open} reaches the server, and the defaults of its streams. */
export interface BusOptions {
  /** An open connection to share; the bus does not close it. */
  readonly connection?: Connection;
  /** Where to connect when no `connection` is given (a URL or full options); the bus owns it. */
  readonly connect?: ConnectOptions | string;
  /** Mints the ids of every append through this bus. Default: the process-wide minter. */
  readonly minter?: EvtMinter;
  /**
   * The byte cap on one stream entry (its field names and values, UTF-8), for every stream of
   * this bus unless the stream says otherwise. Default 1 MiB; `Infinity` for none.
   */
  readonly maxEntryBytes?: number;
}

/** One stream the bus's retention driver keeps trimmed; the bus places it. */
export interface BusRetentionTarget {
  /** The stream's name on this bus. */
  readonly name: string;
  /** How much of it to keep. */
  readonly window: RetentionWindow;
}

/** What both kinds of bus hold. */
interface BusCore {
  readonly conn: Connection;
  readonly owned: boolean;
  readonly minter: EvtMinter | undefined;
  readonly maxEntryBytes: number;
}

/**
 * A bus for stream logs only, opened without a queue by `Bus.open({ connect })`. Each of its
 * streams lives under a hashtag of its own, its name: `bus.stream('audit')` is the key
 * `emq:{audit}:stream:audit` (with `…:dead` and `…:archived` beside it), on a cluster slot of its
 * own. A {@link Bus} (opened with a queue) is one too, with its streams on the queue's slot.
 *
 * @example
 * ```ts
 * const bus = await Bus.open({ connect: process.env.REDIS_URL });
 * const audit = bus.stream('audit');
 * const id = await audit.append({ action: 'refund', amount: '12.50' });
 * ```
 */
export class StreamBus {
  /** The byte cap on one entry that the bus's streams get unless they set their own. */
  readonly maxEntryBytes: number;
  readonly #core: BusCore;
  #closed = false;

  /**
   * Opened by {@link Bus.open}.
   *
   * @param owned whether {@link close} closes `conn`.
   */
  protected constructor(conn: Connection, owned: boolean, minter: EvtMinter | undefined, maxEntryBytes: number) {
    this.#core = { conn, owned, minter, maxEntryBytes };
    this.maxEntryBytes = maxEntryBytes;
  }

  /** The connection this bus speaks through. */
  get connection(): Connection {
    return this.#core.conn;
  }

  /**
   * The stream log `name`. `{ traceContext: true }` carries the producer's W3C trace context in
   * each record (see {@link StreamOptions}); every process that writes or reads the stream should
   * open it with the same option. `maxEntryBytes` overrides the bus's cap for this stream.
   *
   * @throws InvalidNameError for a bad stream name; UnknownOptionError for an unknown option.
   */
  stream(name: string, options: StreamOptions = {}): Stream {
    const maxEntryBytes = options.maxEntryBytes ?? this.#core.maxEntryBytes;
    return new Stream(this.#core.conn, this.hashtagOf(name), name, this.#core.minter, { ...options, maxEntryBytes });
  }

  /**
   * A retention driver for streams of this bus; call `start()` on it (retention is opt-in) and
   * `close()` to stop it.
   *
   * @throws InvalidArgumentError, InvalidNameError or UnknownOptionError for a malformed target.
   */
  retention(targets: readonly BusRetentionTarget[], options: RetentionOptions = {}): RetentionDriver {
    return new RetentionDriver(
      this.#core.conn,
      targets.map((t) => {
        checkBusRetentionTarget(t);
        return { queue: this.hashtagOf(t.name), name: t.name, window: t.window };
      }),
      options,
    );
  }

  /** Closes the connection if the bus opened it. Listeners and consumers close on their own. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#core.owned) await this.#core.conn.close();
  }

  /** True once {@link close} has been called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The hashtag stream `name` lives under: its own name here. */
  protected hashtagOf(name: string): string {
    return ownHashtag(name);
  }
}

/**
 * The event bus of one queue namespace (bus.md): its lifecycle events channel, and its stream logs.
 * Everything it touches is keyed under the queue's `{q}` hashtag, so it lives on the queue's slot.
 * For streams without a queue, open the bus without one (see {@link StreamBus}).
 *
 * @example
 * ```ts
 * const bus = await Bus.open('orders', { connect: process.env.REDIS_URL });
 * const audit = bus.stream('audit');
 * const id = await audit.append({ action: 'refund', amount: '12.50' });
 * const lastHour = await audit.readSince(Date.now() - 3_600_000);
 * const events = await bus.events();
 * events.on((e) => console.log(e.event, e.job));
 * ```
 */
export class Bus extends StreamBus {
  /** The queue namespace. */
  readonly queue: string;
  /** `emq:{q}:events`. */
  readonly channel: string;

  private constructor(queue: string, core: BusCore) {
    super(core.conn, core.owned, core.minter, core.maxEntryBytes);
    this.queue = queue;
    this.channel = queueKeys(queue).events;
  }

  /**
   * Opens a bus for streams only: each stream under its own hashtag (see {@link StreamBus}).
   *
   * @throws UnknownOptionError for an unknown option; InvalidArgumentError for a bad value; both
   *   before any connection is made.
   * @throws ConnectError, AuthError, VersionFenceError or EvictionPolicyError when the bus connects and that fails.
   */
  static open(options?: BusOptions): Promise<StreamBus>;
  /**
   * Opens the bus of `queue`, on a shared connection or on one of its own: its lifecycle events,
   * and streams on the queue's slot.
   *
   * @throws InvalidNameError for a bad queue name; UnknownOptionError for an unknown option; both
   *   before any connection is made.
   * @throws ConnectError, AuthError, VersionFenceError or EvictionPolicyError when the bus connects and that fails.
   */
  static open(queue: string, options?: BusOptions): Promise<Bus>;
  static async open(first?: string | BusOptions, second?: BusOptions): Promise<StreamBus> {
    // Checked at run time too: anything but an options object (or nothing) is read as a queue
    // name, so a JavaScript caller's number or null fails as a bad queue name.
    const given: unknown = first;
    let queue: string | undefined;
    let options: BusOptions;
    if (given === undefined || (typeof given === 'object' && given !== null)) {
      if (second !== undefined) throw new InvalidArgumentError('Bus.open', 'takes (options) for streams only, or (queue, options)');
      options = (given as BusOptions | undefined) ?? {};
    } else {
      assertQueueName(given);
      queue = given;
      options = second ?? {};
    }
    checkBusOptions(options);
    checkConnectionChoice('Bus.open options', options);
    const minter: unknown = options.minter;
    if (minter !== undefined && (typeof minter !== 'object' || minter === null || typeof (minter as { mint?: unknown }).mint !== 'function')) {
      throw new InvalidArgumentError('Bus.open options.minter', 'must be an id minter (an object with mint(namespace))');
    }
    const maxEntryBytes = resolveValueLimit('maxEntryBytes', options.maxEntryBytes);
    const conn = options.connection ?? (await Connection.connect(options.connect ?? {}));
    const core: BusCore = { conn, owned: options.connection === undefined, minter: options.minter, maxEntryBytes };
    return queue === undefined ? new StreamBus(core.conn, core.owned, core.minter, core.maxEntryBytes) : new Bus(queue, core);
  }

  /**
   * Listens to this queue's lifecycle events on a dedicated connection. See {@link EventsListener}.
   *
   * @throws UnknownOptionError for an unknown option, before any connection is made.
   */
  events(options: ListenOptions = {}): Promise<EventsListener> {
    return listen(this.connection, this.queue, options);
  }

  /**
   * Publishes a lifecycle event on `emq:{q}:events` (bus.md §1.2), at most once: nobody listening
   * is still success. For an event that must survive, append it to a stream as well.
   *
   * @param job the job's id: a `JobId`, so a plain string does not compile.
   * @param extra flat string fields such as `outcome`; `event` and `job` are reserved.
   * @throws MalformedIdError when `job` is not a branded id; InvalidArgumentError for an unknown
   *   event name or a field that is reserved or not a string.
   */
  publish(event: EventName, job: JobId, extra: Readonly<Record<string, string>> = {}): Promise<void> {
    return publish(this.connection, this.queue, event, job, extra);
  }

  /** The queue's hashtag: every stream of a queue bus lives on the queue's slot. */
  protected override hashtagOf(): string {
    return this.queue;
  }
}
