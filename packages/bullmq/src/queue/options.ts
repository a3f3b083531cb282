import { InvalidArgumentError, strictOptions } from '@echo/protocol/queue';
import { Queue as EchoQueue } from '@echo/queue';
import { echoConnection, type ConnectionOptions } from '../connection.js';
import type { Envelope } from '../envelope.js';
import { keepCompletedByDefault } from '../defaults.js';
import { definedOnly, echoQueueName } from '../ids.js';
import { checkOptions, type JobsOptions } from '../job-options.js';
import type { RepeatStrategy } from '../schedulers/next-millis.js';
import { checkStreamsOptions, type StreamsOptions } from './meta.js';

/** `new Queue(name, opts)`'s options, as BullMQ names them. */
export interface QueueOptions {
  /** Where Redis is: `{ host, port }` (and credentials), or an Echo `Connection` to share. */
  readonly connection?: ConnectionOptions;
  /** Options every `add` starts from. */
  readonly defaultJobOptions?: JobsOptions;
  /**
   * BullMQ's key prefix. The default `bull` is Echo's queue of the same name; another prefix keeps
   * its queues apart (it becomes part of the Echo queue's name).
   */
  readonly prefix?: string;
  /** The queue's own name again, as `@nestjs/bullmq` passes its queue options; another name is refused. */
  readonly name?: string;
  /**
   * BullMQ: the ioredis connection is shared, so `close()` leaves it open. The drop-in never closes
   * an application's client (it opens its own connection from it), so either value behaves so.
   */
  readonly sharedConnection?: boolean;
  /** BullMQ's advanced settings: `repeatStrategy` computes a pattern scheduler's next run. */
  readonly settings?: { readonly repeatStrategy?: RepeatStrategy };
  /**
   * Do not record the library version and events bound in the queue's meta at open (BullMQ's option
   * for read-only or restricted clients); `getVersion()` then answers what another Queue recorded.
   */
  readonly skipMetasUpdate?: boolean;
  /**
   * BullMQ's bound on the queue's events stream, `{ events: { maxLen } }`. Events travel on a channel
   * here; a `maxLen` given keeps the queue's durable journal (see `@echo/queue`'s `setEvents`) to about
   * that many events, 0 stops it. Recorded in the meta (`getMeta().maxLenEvents`, default 10000).
   */
  readonly streams?: StreamsOptions;
}

const checkQueueOptions = strictOptions('Queue options', {
  known: ['connection', 'defaultJobOptions', 'prefix', 'name', 'sharedConnection', 'settings', 'skipMetasUpdate', 'streams'],
  hints: { telemetry: 'tracing comes through @echo/otel' },
});

const checkQueueSettings = strictOptions('Queue options.settings', { known: ['repeatStrategy'], hints: { backoffStrategy: 'a backoff strategy is a Worker setting (settings.backoffStrategy)' } });

/** Checks a Queue's options (before anything opens) and opens its Echo queue. */
export function open(name: string, opts: QueueOptions): Promise<EchoQueue<Envelope>> {
  checkQueueOptions(definedOnly(opts));
  if (opts.name !== undefined && opts.name !== name) throw new InvalidArgumentError('Queue options.name', `names another queue than ${JSON.stringify(name)}`);
  if (opts.defaultJobOptions !== undefined) checkOptions(opts.defaultJobOptions);
  if (opts.settings !== undefined) checkQueueSettings(opts.settings);
  if (opts.streams !== undefined) checkStreamsOptions(opts.streams);
  if (opts.skipMetasUpdate !== undefined && typeof opts.skipMetasUpdate !== 'boolean') throw new InvalidArgumentError('Queue options.skipMetasUpdate', 'must be a boolean');
  return EchoQueue.open<Envelope>(echoQueueName(name, opts.prefix), echoConnection(opts.connection));
}

/** Opens the Echo queue under a BullMQ queue, with BullMQ's default of keeping completed jobs. */
export async function openQueue(echoName: string, connection: ConnectionOptions | undefined): Promise<EchoQueue<Envelope>> {
  const queue = await EchoQueue.open<Envelope>(echoName, echoConnection(connection));
  try {
    await keepCompletedByDefault(queue);
    return queue;
  } catch (error) {
    await queue.close();
    throw error;
  }
}
