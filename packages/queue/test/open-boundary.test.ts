/**
 * The boundary checks that are not option keys: what Queue.open takes as its connection, the
 * EventsJournal constructor's own arguments, and the "did you mean" of a typo.
 */
import { Connection, InvalidArgumentError, MAX_SPAN_MS, OptionRangeError, UnknownOptionError } from '@echo/protocol/queue';
import { startRedis, uniqueName, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWorker, EventsJournal, Queue, Worker } from '../src/index.js';
import { resolveUntil } from '../src/worker/job-context.js';

let server: RedisServer;
let conn: Connection;
let q: Queue<number>;
beforeAll(async () => {
  server = await startRedis();
  conn = await Connection.connect({ url: server.url });
  q = await Queue.open<number>(uniqueName('boundary'), { connection: conn });
}, 60_000);
afterAll(async () => {
  await conn.close();
  await server.stop();
});

async function refusal(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (caught) {
    return caught;
  }
  return undefined;
}

/** Casts past the types, as a JavaScript caller or a spread config does. */
function loose(value: unknown): never {
  return value as never;
}

describe('Queue.open connection', () => {
  it('refuses connection and connect given together, before connecting', async () => {
    const clients = String(await conn.command('CLIENT', 'LIST')).split('\n').length;
    const error = await refusal(() => Queue.open(q.name, { connection: conn, connect: server.url }));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toContain('not both');
    expect(String(await conn.command('CLIENT', 'LIST')).split('\n').length).toBe(clients);
  });
});

describe('new EventsJournal', () => {
  it('refuses an option it does not read, as queue.journal() does', async () => {
    const error = await refusal(() => new EventsJournal(conn, q.keys.journal, loose({ blockingTimeout: 10 })));
    expect(error).toBeInstanceOf(UnknownOptionError);
    expect((error as UnknownOptionError).hint).toContain('blockMs');
    expect(await refusal(() => new EventsJournal(conn, q.keys.journal, loose({ bogus: 1 })))).toBeInstanceOf(UnknownOptionError);
  });

  it('refuses a block time past its bound', async () => {
    expect(await refusal(() => new EventsJournal(conn, q.keys.journal, { blockMs: 2 ** 31 }))).toBeInstanceOf(OptionRangeError);
  });

  it('refuses a conn that is not a Connection and an empty key', async () => {
    const bad = await refusal(() => new EventsJournal(loose({ host: '127.0.0.1', port: 6379 }), q.keys.journal));
    expect(bad).toBeInstanceOf(InvalidArgumentError);
    expect((bad as Error).message).toContain('open Connection');
    expect(await refusal(() => new EventsJournal(conn, ''))).toBeInstanceOf(InvalidArgumentError);
  });
});

describe('typos name the option they most likely mean', () => {
  const cases: readonly { readonly typo: string; readonly meant: string; readonly run: () => Promise<unknown> }[] = [
    { typo: 'concurency', meant: 'concurrency', run: () => Worker.start(q, () => undefined, loose({ concurency: 4, autorun: false })) },
    { typo: 'maxAtempts', meant: 'maxAttempts', run: () => Worker.start(q, () => undefined, loose({ maxAtempts: 4, autorun: false })) },
    { typo: 'delayms', meant: 'delayMs', run: () => q.enqueue(1, loose({ delayms: 1000 })) },
  ];
  it.each(cases)('$typo: did you mean $meant', async ({ typo, meant, run }) => {
    const error = await refusal(run);
    expect(error).toBeInstanceOf(UnknownOptionError);
    expect((error as UnknownOptionError).option).toBe(typo);
    expect((error as UnknownOptionError).suggestion).toBe(meant);
    expect((error as Error).message).toContain(`did you mean ${meant}?`);
  });
});

describe('moveToDelayed', () => {
  it('bounds its delay and its time', () => {
    expect(() => resolveUntil({ delayMs: MAX_SPAN_MS })).not.toThrow();
    expect(() => resolveUntil({ delayMs: MAX_SPAN_MS + 1 })).toThrow(OptionRangeError);
    expect(() => resolveUntil({ at: Date.now() + MAX_SPAN_MS + 60_000 })).toThrow(OptionRangeError);
    expect(() => resolveUntil(new Date(Date.now() + MAX_SPAN_MS + 60_000))).toThrow(OptionRangeError);
  });
});

describe('Worker.start and BatchWorker.start arguments', () => {
  it.each<[string, () => Promise<unknown>, string]>([
    ['a queue name for the queue', () => Worker.start(loose('orders'), () => undefined), 'Queue.open("orders"'],
    ['a handler that is not a function', () => Worker.start(q, loose('handler')), 'handler'],
    ['a batch handler that is not a function', () => BatchWorker.start(q, loose(undefined)), 'handler'],
    ['a plain object for the batch queue', () => BatchWorker.start(loose({ name: 'orders' }), () => 'ok'), 'Queue.open'],
  ])('%s is refused before anything starts', async (_label, start, words) => {
    const clients = String(await conn.command('CLIENT', 'LIST')).split('\n').length;
    const error = await refusal(start);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toContain(words);
    expect(String(await conn.command('CLIENT', 'LIST')).split('\n').length).toBe(clients);
  });
});
