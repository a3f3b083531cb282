/**
 * BullMQ's time-like options are bounded under their own names, before they are mapped: at the
 * bound admitted, past it refused with a typed error naming the option and the bound, and nothing
 * written. BullMQ's seconds (removeOnComplete.age, drainDelay) are bounded as the ms they become.
 */
import { MAX_SPAN_MS, MAX_TIMER_MS, OptionRangeError } from '@echo/protocol/queue';
import { useRedis } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { Queue, Worker, type JobsOptions, type WorkerOptions } from '../src/index.js';
import { closing, onCluster, queueName, redisConnection } from './setup.js';

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

const SPAN = MAX_SPAN_MS;
const TIMER = MAX_TIMER_MS;

const add = (opts: JobsOptions) => async (n: string): Promise<unknown> => closing(new Queue(n, { connection })).add('j', {}, opts);
const worker = (opts: WorkerOptions) => async (n: string): Promise<void> => {
  const w = new Worker(n, async () => 1, { connection, autorun: false, ...opts });
  await w.waitUntilReady();
  await w.close();
};

// [where, option, bound, at the bound, past it]
const rows: [string, string, number, (n: string) => Promise<unknown>, (n: string) => Promise<unknown>][] = [
  ['job options', 'delay', SPAN, add({ delay: SPAN }), add({ delay: SPAN + 1 })],
  ['job options', 'backoff', SPAN, add({ attempts: 2, backoff: SPAN }), add({ attempts: 2, backoff: SPAN + 1 })],
  ['job options.backoff', 'delay', SPAN, add({ attempts: 2, backoff: { type: 'fixed', delay: SPAN } }), add({ attempts: 2, backoff: { type: 'fixed', delay: SPAN + 1 } })],
  ['job options.deduplication', 'ttl', SPAN, add({ deduplication: { id: 'd', ttl: SPAN } }), add({ deduplication: { id: 'd2', ttl: SPAN + 1 } })],
  ['job options.removeOnComplete', 'age', SPAN, add({ removeOnComplete: { age: SPAN / 1000 } }), add({ removeOnComplete: { age: SPAN / 1000 + 1 } })],
  ['repeat options', 'every', SPAN, add({ repeat: { every: SPAN } }), add({ repeat: { every: SPAN + 1 } })],
  ['Worker options', 'lockDuration', TIMER, worker({ lockDuration: TIMER }), worker({ lockDuration: TIMER + 1 })],
  ['Worker options', 'stalledInterval', TIMER, worker({ stalledInterval: TIMER }), worker({ stalledInterval: TIMER + 1 })],
  ['Worker options', 'drainDelay', TIMER, worker({ drainDelay: 2_147_483 }), worker({ drainDelay: 2_147_484 })],
  ['Worker options.limiter', 'duration', SPAN, worker({ limiter: { max: 1_000_000, duration: SPAN } }), worker({ limiter: { max: 1, duration: SPAN + 1 } })],
];

describe.skipIf(onCluster)('time-like options are bounded under their BullMQ names', () => {
  it.each(rows)('%s.%s: at the bound admitted, past it refused and nothing written', async (where, option, max, ok, over) => {
    const name = queueName();
    await ok(name);
    const before = await keyspace();
    const error: unknown = await over(name).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OptionRangeError);
    const refused = error as OptionRangeError;
    expect(refused.option).toBe(option);
    expect(refused.where).toBe(where);
    expect(refused.max).toBe(max);
    expect(await keyspace()).toEqual(before);
  });
});
