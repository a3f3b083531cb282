import { InvalidArgumentError, strictOptions } from '@echo/protocol/queue';
import { Queue as EchoQueue } from '@echo/queue';
import { echoConnection, type ConnectionOptions } from './connection.js';
import type { Envelope } from './envelope.js';
import { definedOnly, echoQueueName } from './ids.js';
import { publishDropInEvent } from './queue/clean.js';

/** `new QueueEventsProducer(name, opts)`'s options. */
export interface QueueEventsProducerOptions {
  /** Where Redis is: `{ host, port }`, or an Echo `Connection` to share. */
  readonly connection?: ConnectionOptions;
  /** BullMQ's key prefix (see `QueueOptions.prefix`). */
  readonly prefix?: string;
  /** See `QueueOptions.sharedConnection`. */
  readonly sharedConnection?: boolean;
}

/** The drop-in event that carries an application's own event: `custom` names it, `args` its fields. */
export const CUSTOM_EVENT = 'custom';

const checkOptions = strictOptions('QueueEventsProducer options', { known: ['connection', 'prefix', 'sharedConnection'] });

/**
 * BullMQ's `QueueEventsProducer`: publishes an application's own events to the queue's
 * `QueueEvents`, which emit them under their `eventName` with the other fields (as text, as BullMQ's
 * stream holds them). They travel on the queue's events channel, at most once like every event here:
 * a `QueueEvents` not listening when one is published does not hear it.
 */
export class QueueEventsProducer {
  /** The queue's name. */
  readonly name: string;
  readonly #open: Promise<EchoQueue<Envelope>>;

  constructor(name: string, opts: QueueEventsProducerOptions = {}) {
    checkOptions(definedOnly(opts));
    this.name = name;
    this.#open = EchoQueue.open<Envelope>(echoQueueName(name, opts.prefix), echoConnection(opts.connection));
    this.#open.catch(() => undefined);
  }

  /**
   * Publishes `{ eventName, ...fields }`: listeners of `eventName` on the queue's `QueueEvents` get
   * the fields. `maxEvents` is BullMQ's bound on its events stream; the channel keeps no events to
   * bound, so it is only checked.
   */
  // BullMQ's signature: applications name their payload type (`publishEvent<MyEvent>(…)`).
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
  async publishEvent<T extends { eventName: string }>(argsObj: T, maxEvents = 1000): Promise<void> {
    const { eventName, ...rest } = argsObj;
    if (typeof eventName !== 'string' || eventName === '') throw new InvalidArgumentError('eventName', 'must be a non-empty string');
    if (!Number.isSafeInteger(maxEvents) || maxEvents < 0) throw new InvalidArgumentError('maxEvents', 'must be an integer >= 0');
    const args: Record<string, string> = {};
    for (const [key, value] of Object.entries(rest)) args[key] = typeof value === 'string' ? value : JSON.stringify(value);
    await publishDropInEvent(await this.#open, CUSTOM_EVENT, { custom: eventName, args: JSON.stringify(args) });
  }

  /** Resolves once the connection is open. */
  async waitUntilReady(): Promise<void> {
    await this.#open;
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    const queue = await this.#open.catch(() => undefined);
    await queue?.close();
  }
}
