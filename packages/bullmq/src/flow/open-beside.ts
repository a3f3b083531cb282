import { Queue as EchoQueue } from '@echo/queue';
import type { Envelope } from '../envelope.js';
import { echoQueueName } from '../ids.js';

/** Opens Echo queues on `queue`'s connection (the queue itself when it is the one named). */
export function openBeside(queue: EchoQueue<Envelope>): (queueName: string, prefix: string | undefined) => Promise<EchoQueue<Envelope>> {
  return async (queueName, prefix) => {
    const name = echoQueueName(queueName, prefix);
    if (name === queue.name) return queue;
    return EchoQueue.open<Envelope>(name, { connection: queue.connection });
  };
}
