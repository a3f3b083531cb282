import { Connection, assertQueueName, queueKeys, type ConnectOptions, type EventName, type JobId } from '@echo/protocol';
import type { EvtMinter } from './append.js';
import { listen, type EventsListener, type ListenOptions } from './events-listener.js';
import { publish } from './publish.js';
import { RetentionDriver, type RetentionOptions, type RetentionWindow } from './retention.js';
import { Stream, type StreamOptions } from './stream.js';

/** How {@link Bus.open} reaches the server. */
export interface BusOptions {
  /** An open connection to share; the bus does not close it. */
  readonly connection?: Connection;
  /** Where to connect when no `connection` is given (a URL or full options); the bus owns it. */
  readonly connect?: ConnectOptions | string;
  /** Mints the ids of every append through this bus. Default: the process-wide minter. */
  readonly minter?: EvtMinter;
}

/** One stream the bus's retention driver keeps trimmed; the queue is the bus's own. */
export interface BusRetentionTarget {
  readonly name: string;
  readonly window: RetentionWindow;
}

/**
 * The event bus of one queue namespace (bus.md): its lifecycle events channel, and its stream logs.
 * Everything it touches is keyed under the queue's `{q}` hashtag, so it lives on the queue's slot.
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
export class Bus {
  /** The queue namespace. */
  readonly queue: string;
  /** `emq:{q}:events`. */
  readonly channel: string;
  readonly #conn: Connection;
  readonly #owned: boolean;
  readonly #minter: EvtMinter | undefined;

  private constructor(queue: string, conn: Connection, owned: boolean, minter: EvtMinter | undefined) {
    this.queue = queue;
    this.channel = queueKeys(queue).events;
    this.#conn = conn;
    this.#owned = owned;
    this.#minter = minter;
  }

  /**
   * Opens the bus of `queue`, on a shared connection or on one of its own.
   *
   * @throws InvalidNameError for a bad queue name, before any connection is made.
   * @throws ConnectError, AuthError or VersionFenceError when the bus connects and that fails.
   */
  static async open(queue: string, options: BusOptions = {}): Promise<Bus> {
    assertQueueName(queue);
    const conn = options.connection ?? (await Connection.connect(options.connect ?? {}));
    return new Bus(queue, conn, options.connection === undefined, options.minter);
  }

  /** The connection this bus speaks through. */
  get connection(): Connection {
    return this.#conn;
  }

  /**
   * The stream log `name` of this queue. `{ traceContext: true }` carries the producer's W3C trace
   * context in each record (see {@link StreamOptions}); every process that writes or reads the
   * stream should open it with the same option.
   *
   * @throws InvalidNameError for a bad stream name.
   */
  stream(name: string, options: StreamOptions = {}): Stream {
    return new Stream(this.#conn, this.queue, name, this.#minter, options);
  }

  /** Listens to this queue's lifecycle events on a dedicated connection. See {@link EventsListener}. */
  events(options: ListenOptions = {}): Promise<EventsListener> {
    return listen(this.#conn, this.queue, options);
  }

  /** Publishes a lifecycle event, at most once. See {@link publish}. */
  publish(event: EventName, job: JobId, extra: Readonly<Record<string, string>> = {}): Promise<void> {
    return publish(this.#conn, this.queue, event, job, extra);
  }

  /**
   * A retention driver for streams of this queue; call `start()` on it (retention is opt-in).
   *
   * @throws InvalidArgumentError or InvalidNameError for a malformed target.
   */
  retention(targets: readonly BusRetentionTarget[], options: RetentionOptions = {}): RetentionDriver {
    return new RetentionDriver(
      this.#conn,
      targets.map((t) => ({ queue: this.queue, name: t.name, window: t.window })),
      options,
    );
  }

  /** Closes the connection if the bus opened it. Listeners and consumers close on their own. */
  async close(): Promise<void> {
    if (this.#owned) await this.#conn.close();
  }
}
