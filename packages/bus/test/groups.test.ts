import { ConnectionLostError, InvalidArgumentError, ServerError, mintId, parseAutoclaim, parseOneStreamRead, type Connection, type EvtId } from '@echo/protocol/bus';
import { uniqueName, useRedis } from '@echo/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Bus, type GroupConsumer, type GroupEntry, type Stream } from '../src/index.js';
import { xaddId } from '../src/wire.js';
import { entryFromPairs } from '../src/record/fields.js';
import { connect, purge, sleep, until } from './helpers.js';

let conn: Connection;
let queue: string;
const consumers: GroupConsumer[] = [];

beforeAll(async () => {
  conn = await connect();
});
afterAll(async () => {
  await conn.close();
});
afterEach(async () => {
  await Promise.all(consumers.splice(0).map((c) => c.close()));
  await purge(conn, queue);
});

/** How many clients the server holds in a blocking command. */
async function blockedClients(): Promise<number> {
  return Number(/blocked_clients:(\d+)/.exec(String(await conn.command('INFO', 'clients')))?.[1]);
}

async function freshStream(scenario: string): Promise<Stream> {
  queue = `${uniqueName('bus')}.${scenario}`;
  return (await Bus.open(queue, { connection: conn })).stream('log');
}

async function pending(stream: Stream, group: string): Promise<[string, string, number, number][]> {
  return (await conn.command('XPENDING', stream.key, group, '-', '+', '100')) as [string, string, number, number][];
}

async function start(stream: Stream, group: string, handler: (e: GroupEntry) => void | Promise<void>, options: Partial<Parameters<Stream['consume']>[2]> = {}): Promise<GroupConsumer> {
  const consumer = await stream.consume(group, handler, { start: 'head', consumer: 'c1', beatMs: 50, minIdleMs: 30_000, ...options });
  consumers.push(consumer);
  return consumer;
}

describe('conformance 76 stream_group', () => {
  it('a forced XAUTOCLAIM with min-idle 0 returns the same un-acked branded id, not the acked one', async () => {
    const stream = await freshStream('stream_group');
    const [a, b] = await stream.appendBatch([{ n: 'a' }, { n: 'b' }]);
    expect(await stream.openGroup('g', 'head')).toBe('created');
    const read = parseOneStreamRead(await conn.command('XREADGROUP', 'GROUP', 'g', 'reader', 'COUNT', '10', 'STREAMS', stream.key, '>'), stream.key);
    expect(read.map((e) => entryFromPairs(e.id, e.fields ?? [])[0])).toEqual([a, b]);
    expect(await conn.command('XACK', stream.key, 'g', read[0]?.id ?? '')).toBe(1);

    const claimed = parseAutoclaim(await conn.command('XAUTOCLAIM', stream.key, 'g', 'thief', '0', '0', 'COUNT', '10'));
    expect(claimed.entries.map((e) => entryFromPairs(e.id, e.fields ?? [])[0])).toEqual([b]);
    expect(claimed.deleted).toEqual([]);
  });
});

describe('openGroup', () => {
  it('maps new to $ and head to 0, accepts BUSYGROUP, and fails on WRONGTYPE', async () => {
    const stream = await freshStream('open');
    await stream.append({ before: '1' });
    expect(await stream.openGroup('from-head', 'head')).toBe('created');
    expect(await stream.openGroup('from-new', 'new')).toBe('created');
    expect(await stream.openGroup('from-new', 'head')).toBe('exists');
    const groups = (await conn.command('XINFO', 'GROUPS', stream.key)) as unknown[][];
    const lastDelivered: Record<string, unknown> = Object.fromEntries(groups.map((g) => [String(g[1]), g[7]]));
    expect(lastDelivered['from-head']).toBe('0-0');
    expect(lastDelivered['from-new']).not.toBe('0-0');

    const fresh = (await Bus.open(queue, { connection: conn })).stream('made-by-group');
    expect(await fresh.openGroup('g', 'new')).toBe('created');
    expect(await conn.command('TYPE', fresh.key)).toBe('stream');

    await conn.command('SET', `emq:{${queue}}:stream:str`, 'x');
    await expect((await Bus.open(queue, { connection: conn })).stream('str').openGroup('g', 'head')).rejects.toThrow(ServerError);
    await expect(stream.openGroup('g', 'latest' as never)).rejects.toThrow(InvalidArgumentError);
    await expect(stream.openGroup('', 'head')).rejects.toThrow(InvalidArgumentError);
  });
});

describe('GroupConsumer', () => {
  it('leaves a failed entry pending, gets it back with attempts 2, and acks it then', async () => {
    const stream = await freshStream('retry');
    const seen: [EvtId, string | undefined, number, string][] = [];
    const errors: unknown[] = [];
    let failOnce = true;
    await start(
      stream,
      'g',
      (entry) => {
        seen.push([entry.id, entry.payload.n, entry.attempts, entry.group]);
        if (entry.payload.n === 'flaky' && failOnce) {
          failOnce = false;
          throw new Error('first try fails');
        }
      },
      // An idle bound the 'ok' entry's ack meets on a loaded machine (at 20 ms a late ack was claimed again).
      { minIdleMs: 300, onError: (e, entry) => errors.push([e, entry?.id]) },
    );
    const [ok, flaky] = await stream.appendBatch([{ n: 'ok' }, { n: 'flaky' }]);
    await until(() => seen.length === 3);
    await until(async () => (await pending(stream, 'g')).length === 0);
    // The server drops the pending entry when it runs the XACK; the consumer counts it when the reply arrives.
    await until(() => consumers[0]?.stats().acked === 2);
    expect(seen).toEqual([
      [ok, 'ok', 1, 'g'],
      [flaky, 'flaky', 1, 'g'],
      [flaky, 'flaky', 2, 'g'],
    ]);
    expect(errors).toEqual([[expect.objectContaining({ message: 'first try fails' }), flaky]]);
    expect(consumers[0]?.stats()).toMatchObject({ delivered: 3, acked: 2, failed: 1, claimed: 1 });
  });

  it('reclaims an entry a crashed consumer read but never acked', async () => {
    const stream = await freshStream('crash');
    await stream.openGroup('g', 'head');
    const [lost] = await stream.appendBatch([{ n: 'lost' }]);
    // Consumer A reads and dies before acking.
    const readByA = parseOneStreamRead(await conn.command('XREADGROUP', 'GROUP', 'g', 'A', 'COUNT', '10', 'STREAMS', stream.key, '>'), stream.key);
    expect(readByA).toHaveLength(1);
    expect((await pending(stream, 'g'))[0]?.[1]).toBe('A');

    const seen: GroupEntry[] = [];
    const b = await start(stream, 'g', (e) => void seen.push(e), { consumer: 'B', minIdleMs: 30 });
    await until(() => seen.length === 1);
    expect(seen[0]).toEqual({ id: lost, payload: { n: 'lost' }, attempts: 2, group: 'g' });
    // The server can drop the pending entry a moment before b has read its XACK reply.
    await until(async () => (await pending(stream, 'g')).length === 0 && b.stats().acked === 1);
    expect(b.stats()).toMatchObject({ claimed: 1, acked: 1, recovered: 0 });
  });

  it('recovers its own backlog first on restart, moving the cursor past entries that keep failing', async () => {
    const stream = await freshStream('self');
    await stream.openGroup('g', 'head');
    const ids = await stream.appendBatch([{ n: '0' }, { n: '1' }, { n: '2' }, { n: '3' }, { n: '4' }]);
    // A previous life of c1 read everything and acked nothing.
    await conn.command('XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', '10', 'STREAMS', stream.key, '>');

    const seen: [string | undefined, number][] = [];
    const c1 = await start(
      stream,
      'g',
      (e) => {
        seen.push([e.payload.n, e.attempts]);
        if (e.payload.n === '1') throw new Error('poison');
      },
      // Small batches make the cursor move several times; a long minIdle keeps the claim path out of it.
      { count: 2 },
    );
    await until(() => seen.length === 5);
    await sleep(150);
    await until(() => c1.stats().acked === 4);
    // Each entry once: the poison one was not re-read for ever from cursor 0.
    expect(seen).toEqual([
      ['0', 2],
      ['1', 2],
      ['2', 2],
      ['3', 2],
      ['4', 2],
    ]);
    expect(c1.stats()).toMatchObject({ recovered: 5, acked: 4, failed: 1 });
    expect((await pending(stream, 'g')).map((p) => p[0])).toHaveLength(1);
    expect(ids).toHaveLength(5);
  });

  it('honours a stop between entries, never inside one', async () => {
    const stream = await freshStream('stop');
    await stream.appendBatch([{ n: '0' }, { n: '1' }, { n: '2' }]);
    const seen: string[] = [];
    let closing: Promise<void> | undefined;
    const consumer = await start(stream, 'g', async (e) => {
      seen.push(e.payload.n ?? '');
      closing ??= consumer.close();
      await sleep(30);
    });
    await until(() => closing !== undefined);
    await closing;
    expect(consumer.running).toBe(false);
    expect(seen).toEqual(['0']);
    // The entry in hand was finished and acked; the rest of its batch stays pending.
    expect((await pending(stream, 'g')).length).toBe(2);
  });

  it('close interrupts a blocked read at once', async () => {
    const stream = await freshStream('block');
    const blockedBefore = await blockedClients();
    const consumer = await start(stream, 'g', () => undefined, { beatMs: 30_000 });
    await until(async () => (await blockedClients()) > blockedBefore);
    const started = Date.now();
    await consumer.close();
    // Well short of the 30 s read it interrupted, with room for a busy machine.
    expect(Date.now() - started).toBeLessThan(7_500);
    await consumer.close();
  });

  it('delivers new entries promptly while blocked, and settles entries appended later in order', async () => {
    const stream = await freshStream('live');
    const seen: string[] = [];
    // The beat is far past every wait below: an entry seen in time was delivered by the blocked
    // read, not by the next beat, however busy the machine.
    const blockedBefore = await blockedClients();
    await start(stream, 'g', (e) => void seen.push(e.payload.n ?? ''), { beatMs: 60_000, start: 'new' });
    await until(async () => (await blockedClients()) > blockedBefore);
    const sent = Date.now();
    await stream.append({ n: 'a' });
    await until(() => seen.length === 1, 10_000);
    expect(Date.now() - sent).toBeLessThan(15_000);
    await stream.appendBatch([{ n: 'b' }, { n: 'c' }]);
    await until(() => seen.length === 3);
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('rides out a killed socket: the loop reports it, reconnects and keeps consuming', async () => {
    const stream = await freshStream('reconnect');
    const name = uniqueName('gc');
    const seen: string[] = [];
    const errors: unknown[] = [];
    const consumer = await start(stream, 'g', (e) => void seen.push(e.payload.n ?? ''), {
      // Far past every wait below, so a back-off beat after the lost socket cannot hide in them.
      beatMs: 60_000,
      connectionName: name,
      onError: (e) => errors.push(e),
    });
    await stream.append({ n: 'before' });
    await until(() => seen.length === 1);
    const list = (await conn.command('CLIENT', 'LIST')) as string;
    const id = /^id=(\d+)/.exec(list.split('\n').find((l) => l.includes(` name=${name} `)) ?? '')?.[1];
    expect(id).toBeDefined();
    await conn.command('CLIENT', 'KILL', 'ID', id ?? '');
    await until(() => errors.length === 1);
    expect(errors[0]).toBeInstanceOf(ConnectionLostError);
    await stream.append({ n: 'after' });
    const sent = Date.now();
    await until(() => consumer.stats().acked === 2, 10_000);
    // No back-off beat after a lost socket: the 60 s beat would show here.
    expect(Date.now() - sent).toBeLessThan(15_000);
    expect(seen).toEqual(['before', 'after']);
  });

  it('after a lost socket, recovers entries whose read reply was lost with it, without waiting minIdle', async () => {
    const stream = await freshStream('lost-reply');
    const name = uniqueName('gc');
    const seen: GroupEntry[] = [];
    const blockedBefore = await blockedClients();
    const consumer = await start(stream, 'g', (e) => void seen.push(e), { beatMs: 5000, connectionName: name });
    await until(async () => (await blockedClients()) > blockedBefore);
    // Deliver an entry to c1 that the running c1 never sees: what a read whose reply died in flight
    // leaves behind. Inside MULTI, the blocked read of the real c1 is only served after EXEC, and by then
    // the entry is no longer new.
    const id = mintId('EVT');
    const admin = (await useRedis()).client();
    await admin
      .multi()
      .call('XADD', stream.key, xaddId(id), 'id', id, 'n', 'lost')
      .call('XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', '10', 'STREAMS', stream.key, '>')
      .exec()
      .finally(() => admin.disconnect());
    await sleep(100);
    expect(seen).toEqual([]);
    expect((await pending(stream, 'g')).map((p) => p[1])).toEqual(['c1']);

    const list = (await conn.command('CLIENT', 'LIST')) as string;
    const clientId = /^id=(\d+)/.exec(list.split('\n').find((l) => l.includes(` name=${name} `)) ?? '')?.[1];
    await conn.command('CLIENT', 'KILL', 'ID', clientId ?? '');
    // Well inside minIdle (30 s): the recovery did not wait for the claim path.
    await until(() => consumer.stats().acked === 1, 10_000);
    expect(seen).toEqual([{ id, payload: { n: 'lost' }, attempts: 2, group: 'g' }]);
    expect(consumer.stats()).toMatchObject({ recovered: 1, claimed: 0 });
  });

  it('checks its options before sending anything', async () => {
    const stream = await freshStream('options');
    const before = conn.stats().commands;
    await expect(stream.consume('g', () => undefined, { start: 'head', consumer: 'has space' })).rejects.toThrow(InvalidArgumentError);
    await expect(stream.consume('g', () => undefined, { start: 'head', consumer: 'c', beatMs: 0 })).rejects.toThrow(InvalidArgumentError);
    await expect(stream.consume('g', () => undefined, { start: 'head', consumer: 'c', count: 1.5 })).rejects.toThrow(InvalidArgumentError);
    await expect(stream.consume('g', 'nope' as never, { start: 'head', consumer: 'c' })).rejects.toThrow(InvalidArgumentError);
    await expect(stream.consume('g', () => undefined, { consumer: 'c' } as never)).rejects.toThrow(/start/);
    expect(conn.stats().commands).toBe(before);
  });
});
