import { UnknownOptionError } from '@echo/protocol/queue';
import { useRedis } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { FlowProducer, NotSupportedError, Queue, QueueEvents, Worker } from '../src/index.js';
import { closing, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();
const redis = (await useRedis()).client();

async function keyspace(): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', '*', 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys.sort();
}

interface Row {
  readonly where: string;
  readonly key: string;
  readonly hint?: RegExp;
  readonly call: (name: string) => Promise<unknown>;
}

const unknownRows: Row[] = [
  { where: 'add', key: 'delayMs', hint: /delay/, call: (n) => closing(new Queue(n, { connection })).add('j', {}, { delayMs: 5 } as never) },
  { where: 'add', key: 'key', hint: /jobId/, call: (n) => closing(new Queue(n, { connection })).add('j', {}, { key: 'k' } as never) },
  { where: 'add', key: 'dedupId', hint: /deduplication/, call: (n) => closing(new Queue(n, { connection })).add('j', {}, { dedupId: 'd' } as never) },
  { where: 'add', key: 'priorty', call: (n) => closing(new Queue(n, { connection })).add('j', {}, { priorty: 1 } as never) },
  { where: 'add backoff', key: 'kind', call: (n) => closing(new Queue(n, { connection })).add('j', {}, { attempts: 2, backoff: { type: 'fixed', kind: 1 } } as never) },
  { where: 'add deduplication', key: 'mode', call: (n) => closing(new Queue(n, { connection })).add('j', {}, { deduplication: { id: 'd', mode: 'debounce' } } as never) },
  { where: 'add repeat', key: 'count', hint: /iteration count/, call: (n) => closing(new Queue(n, { connection })).add('j', {}, { repeat: { every: 1000, count: 2 } } as never) },
  { where: 'addBulk', key: 'delayMs', hint: /delay/, call: (n) => closing(new Queue(n, { connection })).addBulk([{ name: 'j', data: {}, opts: { delayMs: 1 } as never }]) },
  { where: 'upsertJobScheduler', key: 'cron', hint: /pattern/, call: (n) => closing(new Queue(n, { connection })).upsertJobScheduler('s', { cron: '* * * * *' } as never) },
  { where: 'Queue options.streams.events', key: 'maxLength', call: async (n) => new Queue(n, { connection, streams: { events: { maxLength: 5 } as never } }) },
  { where: 'Queue connection', key: 'tls', hint: /TLS/, call: async (n) => new Queue(n, { connection: { ...connection, tls: {} } as never }) },
  { where: 'Worker options', key: 'leaseMs', hint: /lockDuration/, call: async (n) => new Worker(n, async () => 1, { connection, leaseMs: 1000 } as never) },
  { where: 'Worker options', key: 'maxAttempts', hint: /attempts is a job option/, call: async (n) => new Worker(n, async () => 1, { connection, maxAttempts: 3 } as never) },
  { where: 'Worker limiter', key: 'groupKey', hint: /lanes/, call: async (n) => new Worker(n, async () => 1, { connection, limiter: { max: 1, duration: 1000, groupKey: 'customerId' } } as never) },
  { where: 'Worker settings', key: 'backoff', call: async (n) => new Worker(n, async () => 1, { connection, settings: { backoff: 1 } } as never) },
  { where: 'QueueEvents options', key: 'lastEventId', hint: /journal/, call: async (n) => new QueueEvents(n, { connection, lastEventId: '0' } as never) },
  { where: 'flow job', key: 'queue', call: (n) => closing(new FlowProducer({ connection })).add({ name: 'p', queueName: n, queue: n, children: [] } as never) },
  { where: 'obliterate', key: 'count', hint: /chunks/, call: (n) => closing(new Queue(n, { connection })).obliterate({ count: 10 } as never) },
];

const unsupportedRows: Row[] = [
  { where: 'add', key: 'removeDependencyOnFailure', call: (n) => closing(new Queue(n, { connection })).add('j', {}, { removeDependencyOnFailure: true }) },
  { where: 'Worker options', key: 'useWorkerThreads', call: async (n) => new Worker(n, async () => 1, { connection, useWorkerThreads: true } as never) },
  { where: 'Worker processor', key: 'processor file', call: async (n) => new Worker(n, './processor.js', { connection }) },
];

describe('strict options: a wrong or foreign name is refused, naming the key, and nothing is written', () => {
  it.each(unknownRows)('$where.$key → UnknownOptionError', async (row) => {
    const before = await keyspace();
    const error = await Promise.resolve().then(() => row.call(queueName())).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownOptionError);
    expect((error as UnknownOptionError).option).toBe(row.key);
    if (row.hint) expect((error as UnknownOptionError).hint).toMatch(row.hint);
    expect(await keyspace()).toEqual(before);
  });

  it.each(unsupportedRows)('$where $key → NotSupportedError naming it', async (row) => {
    const before = await keyspace();
    const error = await Promise.resolve().then(() => row.call(queueName())).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(NotSupportedError);
    expect((error as NotSupportedError).message).toContain(row.key);
    expect(await keyspace()).toEqual(before);
  });
});
