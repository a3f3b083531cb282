/**
 * What Bus.open takes besides option keys (its connection, its minter), and the verdict objects a
 * consumer's handler answers: a misspelt verdict fails the delivery with a typed error, never read
 * as something else.
 */
import { Connection, InvalidArgumentError, OptionRangeError, UnknownOptionError } from '@echo/protocol/bus';
import { startRedis, waitFor, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus, type GroupConsumer, type StreamBus, type Verdict } from '../src/index.js';

let server: RedisServer;
let conn: Connection;
let bus: StreamBus;
beforeAll(async () => {
  server = await startRedis();
  conn = await Connection.connect({ url: server.url });
  bus = await Bus.open({ connection: conn });
});
afterAll(async () => {
  await conn.close();
  await server.stop();
});

async function refusal(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => undefined,
    (e: unknown) => e,
  );
}

/** Casts past the types, as a JavaScript caller or a spread config does. */
function loose(value: unknown): never {
  return value as never;
}

async function clientCount(): Promise<number> {
  return String(await conn.command('CLIENT', 'LIST')).split('\n').length;
}

describe('Bus.open', () => {
  it.each([
    ['streams only', (options: object) => Bus.open(loose(options))],
    ['of a queue', (options: object) => Bus.open('orders', loose(options))],
  ])('%s: refuses driver options under connection with the hint to use connect', async (_label, open) => {
    const clients = await clientCount();
    const error = await refusal(() => open({ connection: { host: '127.0.0.1', port: 6379 } }));
    expect(error).toBeInstanceOf(UnknownOptionError);
    expect((error as UnknownOptionError).option).toBe('connection');
    expect((error as UnknownOptionError).hint).toContain('as connect');
    expect(await clientCount()).toBe(clients);
  });

  it('refuses connection and connect together, before connecting', async () => {
    const clients = await clientCount();
    const error = await refusal(() => Bus.open({ connection: conn, connect: server.url }));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toContain('not both');
    expect(await clientCount()).toBe(clients);
  });

  it('refuses a minter that is not one', async () => {
    const error = await refusal(() => Bus.open({ connection: conn, minter: loose(() => 'EVT') }));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toContain('minter');
  });
});

describe('verdict objects', () => {
  const consumers: GroupConsumer[] = [];
  afterAll(async () => {
    await Promise.all(consumers.map((c) => c.close()));
  });

  it.each([
    ['an unknown key', loose({ retryInMs: 10, delay: 5 }), UnknownOptionError, 'retryInMs'],
    ['a typo', loose({ retryInMS: 10 }), UnknownOptionError, 'did you mean retryInMs?'],
    ['both verdicts', loose({ retryInMs: 10, deadLetter: 'bad' }), InvalidArgumentError, 'not both'],
    ['a delay past its bound', { retryInMs: 1e15 }, OptionRangeError, '315360000000'],
  ] as const)('%s fails the delivery, reported typed, and the entry is not acked', async (label, verdict: Verdict, type, words) => {
    const stream = bus.stream(`verdicts-${label.replaceAll(' ', '-')}`);
    await stream.append({ n: '1' });
    const errors: unknown[] = [];
    const consumer = await stream.consume('g', () => verdict, { start: 'head', consumer: 'c', beatMs: 50, onError: (error) => errors.push(error) });
    consumers.push(consumer);
    await waitFor(() => errors.length > 0, { timeoutMs: 10_000 });
    expect(errors[0]).toBeInstanceOf(type);
    expect((errors[0] as Error).message).toContain(words);
    expect(consumer.stats()).toMatchObject({ acked: 0, deadLettered: 0 });
    expect(consumer.stats().failed).toBeGreaterThanOrEqual(1);
  });
});
