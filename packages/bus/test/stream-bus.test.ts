/**
 * A bus opened without a queue: streams only, each under its own name as the hashtag, in the key
 * form of bus.md §2 (so every key parses, and a queue bus of that name reaches the same stream).
 */
import { Connection, InvalidArgumentError, InvalidNameError, parseKey, slot } from '@echo/protocol/extend';
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus, StreamBus } from '../src/index.js';

let server: RedisServer;
let conn: Connection;

beforeAll(async () => {
  server = await startRedis();
  conn = await Connection.connect({ url: server.url });
});
afterAll(async () => {
  await conn.close();
  await server.stop();
});

async function keys(): Promise<string[]> {
  return ((await conn.command('KEYS', '*')) as string[]).sort();
}

describe('Bus.open without a queue', () => {
  it('opens on its own connection from a URL, and puts each stream under its own hashtag', async () => {
    const bus = await Bus.open({ connect: server.url });
    try {
      expect(bus).toBeInstanceOf(StreamBus);
      expect(bus).not.toBeInstanceOf(Bus);
      const audit = bus.stream('audit');
      const clicks = bus.stream('clicks');
      expect(audit.key).toBe('emq:{audit}:stream:audit');
      expect(audit.deadLettersKey).toBe('emq:{audit}:stream:audit:dead');
      expect(clicks.key).toBe('emq:{clicks}:stream:clicks');
      const id = await audit.append({ action: 'refund' });
      await clicks.append({ x: '1' });
      await audit.putArchived(id);
      expect((await audit.read()).map(([got]) => got)).toEqual([id]);
      const found = await keys();
      expect(found).toEqual(['emq:{audit}:stream:audit', 'emq:{audit}:stream:audit:archived', 'emq:{clicks}:stream:clicks', '{emq}:version']);
      // The key form of bus.md §2: every key parses, as the stream of the "queue" named like it.
      for (const key of found.filter((k) => k.startsWith('emq:'))) expect(parseKey(key).kind).toBe('stream');
      expect(slot(audit.key)).not.toBe(slot(clicks.key));
    } finally {
      await bus.close();
    }
    expect(conn.status).toBe('ready');
  });

  it('is the same stream a queue bus of that name reaches', async () => {
    const alone = (await Bus.open({ connection: conn })).stream('ledger');
    const viaQueue = (await Bus.open('ledger', { connection: conn })).stream('ledger');
    const id = await alone.append({ n: '1' });
    expect(await viaQueue.read()).toEqual([[id, { n: '1' }]]);
  });

  it('keeps its retention targets under their own hashtags', async () => {
    const bus = await Bus.open({ connection: conn });
    const retention = bus.retention([{ name: 'trimmed', window: { maxlen: 0 } }]);
    expect(retention.targets.map((t) => [t.queue, t.name])).toEqual([['trimmed', 'trimmed']]);
    await bus.stream('trimmed').append({ a: '1' });
    const [outcome] = await retention.tick();
    expect(outcome?.ok).toBe(true);
    expect(await conn.command('XLEN', 'emq:{trimmed}:stream:trimmed')).toBe(0);
  });

  it('refuses the stream name emq (the reserve) and a bad name, writing nothing', async () => {
    const bus = await Bus.open({ connection: conn });
    const before = await keys();
    expect(() => bus.stream('emq')).toThrow(InvalidNameError);
    expect(() => bus.stream('a:b')).toThrow(InvalidNameError);
    expect(await keys()).toEqual(before);
  });

  it('refuses a second options argument, and a non-name as queue, before connecting', async () => {
    const open = Bus.open.bind(Bus) as (first: unknown, second?: unknown) => Promise<unknown>;
    await expect(open({ connection: conn }, { connection: conn })).rejects.toThrow(InvalidArgumentError);
    await expect(Bus.open(42 as unknown as string, { connection: conn })).rejects.toThrow(InvalidNameError);
  });
});
