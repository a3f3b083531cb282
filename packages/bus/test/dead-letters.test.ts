import { IdMinter, type Connection, type EvtId } from '@echo/protocol/bus';
import { uniqueName } from '@echo/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Bus, type ConsumeOptions, type GroupConsumer, type GroupEntry, type Stream } from '../src/index.js';
import { connect, purge, until } from './helpers.js';

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

async function freshStream(scenario: string, bus?: (q: string) => Promise<Bus>): Promise<Stream> {
  queue = `${uniqueName('dl')}.${scenario}`;
  return (await (bus ?? ((q) => Bus.open(q, { connection: conn })))(queue)).stream('log');
}

function options(extra: Partial<ConsumeOptions> = {}): ConsumeOptions {
  return { start: 'head', consumer: 'c1', beatMs: 30, minIdleMs: 30_000, ...extra };
}

async function track<T extends GroupConsumer>(consumer: Promise<T>): Promise<T> {
  const c = await consumer;
  consumers.push(c);
  return c;
}

async function pendingCount(stream: Stream, group: string): Promise<number> {
  return Number(((await conn.command('XPENDING', stream.key, group)) as unknown[])[0]);
}

describe('max deliveries and the dead-letter stream', () => {
  it('moves an entry whose handler keeps failing, with its reason, attempts and id, and acks it', async () => {
    const stream = await freshStream('max');
    const [good, poison] = await stream.appendBatch([{ n: 'good' }, { n: 'poison' }]);
    const seen: [string | undefined, number][] = [];
    const c = await track(
      stream.consume(
        'g',
        (e) => {
          seen.push([e.payload.n, e.attempts]);
          if (e.payload.n === 'poison') throw new Error(`boom ${e.attempts}`);
        },
        // An idle bound the good entry's ack meets on a loaded machine: at 20 ms a late ack let the
        // claim path deliver 'good' a second time.
        options({ minIdleMs: 300, maxDeliveries: 3 }),
      ),
    );
    await until(async () => (await stream.deadLetters()).length === 1);
    const [dead] = await stream.deadLetters();
    expect(dead).toMatchObject({ id: poison, group: 'g', consumer: 'c1', reason: 'Error: boom 3', attempts: 3, payload: { n: 'poison' } });
    expect(dead?.deadAt).toBeGreaterThan(Date.now() - 60_000);
    expect(seen).toEqual([
      ['good', 1],
      ['poison', 1],
      ['poison', 2],
      ['poison', 3],
    ]);
    await until(async () => (await pendingCount(stream, 'g')) === 0 && c.stats().acked === 1);
    expect(c.stats()).toMatchObject({ acked: 1, deadLettered: 1, failed: 3 });
    // The log itself keeps the entry: other groups still read it.
    expect((await stream.read()).map(([id]) => id)).toEqual([good, poison]);
  });

  it('a claim past max deliveries dead-letters the entry without calling the handler', async () => {
    const stream = await freshStream('claim');
    await stream.openGroup('g', 'head');
    const [lost] = await stream.appendBatch([{ n: 'crashes-its-consumer' }]);
    // A consumer read it twice and died each time: delivery count 2.
    await conn.command('XREADGROUP', 'GROUP', 'g', 'A', 'COUNT', '10', 'STREAMS', stream.key, '>');
    await conn.command('XREADGROUP', 'GROUP', 'g', 'A', 'COUNT', '10', 'STREAMS', stream.key, '0');
    const seen: GroupEntry[] = [];
    const c = await track(stream.consume('g', (e) => void seen.push(e), options({ consumer: 'B', minIdleMs: 10, maxDeliveries: 2 })));
    await until(async () => (await stream.deadLetters()).length === 1);
    expect(await stream.deadLetters()).toEqual([expect.objectContaining({ id: lost, reason: 'max deliveries exceeded', attempts: 3, consumer: 'B' })]);
    expect(seen).toEqual([]);
    expect(await pendingCount(stream, 'g')).toBe(0);
    expect(c.stats().deadLettered).toBe(1);
  });

  it('takes verdicts from a batch handler: ack, dead-letter at once, retry', async () => {
    const stream = await freshStream('batch');
    const [a, b, c] = await stream.appendBatch([{ n: 'a' }, { n: 'b' }, { n: 'c' }]);
    const batches: string[][] = [];
    await track(
      stream.consumeBatch(
        'g',
        (entries) => {
          batches.push(entries.map((e) => `${e.payload.n ?? ''}${e.attempts}`));
          return entries.map((e) => (e.payload.n === 'a' ? 'ack' : e.payload.n === 'b' ? { deadLetter: 'bad input' } : e.attempts < 2 ? 'retry' : 'ack'));
        },
        options({ minIdleMs: 300 }), // an idle bound a late settle meets on a loaded machine
      ),
    );
    await until(() => batches.length === 2);
    await until(async () => (await pendingCount(stream, 'g')) === 0);
    expect(batches).toEqual([['a1', 'b1', 'c1'], ['c2']]);
    expect((await stream.deadLetters()).map((d) => [d.id, d.reason, d.attempts])).toEqual([[b, 'bad input', 1]]);
    expect([a, c]).toHaveLength(2);
  });
});

describe('redrive', () => {
  it('puts dead letters back in front of their group only, under their own id, with the count reset', async () => {
    const stream = await freshStream('redrive');
    const [x, y] = await stream.appendBatch([{ n: 'x' }, { n: 'y' }]);
    let healthy = false;
    const seen: [EvtId, number][] = [];
    await track(
      stream.consume(
        'g',
        (e) => {
          seen.push([e.id, e.attempts]);
          return healthy ? 'ack' : { deadLetter: 'downstream is down' };
        },
        options({ minIdleMs: 300 }), // an idle bound a late dead-letter verdict meets on a loaded machine
      ),
    );
    const other: EvtId[] = [];
    await track(stream.consume('other', (e) => void other.push(e.id), options({ consumer: 'o1' })));
    await until(async () => (await stream.deadLetters()).length === 2 && other.length === 2);

    healthy = true;
    expect(await stream.redrive({ ids: [y as EvtId] })).toEqual({ redriven: 1, left: [] });
    await until(() => seen.length === 3);
    expect(seen[2]).toEqual([y, 1]);
    expect((await stream.deadLetters()).map((d) => d.id)).toEqual([x]);

    expect(await stream.redrive({ all: true })).toEqual({ redriven: 1, left: [] });
    await until(() => seen.length === 4);
    expect(seen[3]).toEqual([x, 1]);
    await until(async () => (await pendingCount(stream, 'g')) === 0);
    expect(await stream.deadLetters()).toEqual([]);
    // The other group was never disturbed.
    expect(other).toEqual([x, y]);
  });

  it('leaves a record whose entry was trimmed away, and refuses a bad target', async () => {
    const stream = await freshStream('trimmed');
    await stream.appendBatch([{ n: 'x' }]);
    await track(stream.consume('g', () => ({ deadLetter: 'no' }), options()));
    await until(async () => (await stream.deadLetters()).length === 1);
    await stream.trim({ maxlen: 0, approx: false });
    const result = await stream.redrive({ all: true });
    expect(result.redriven).toBe(0);
    expect(result.left.map((d) => d.reason)).toEqual(['no']);
    expect(await stream.deadLetters()).toHaveLength(1);
    await expect(stream.redrive({} as never)).rejects.toThrow(/ids/);
  });
});

describe('nack with a delay', () => {
  it('redelivers no sooner than asked, and well before minIdle', async () => {
    const stream = await freshStream('delay');
    await stream.append({ n: 'later' });
    const times: number[] = [];
    await track(
      stream.consume(
        'g',
        (e) => {
          times.push(Date.now());
          return e.attempts === 1 ? { retryInMs: 300 } : 'ack';
        },
        options({ minIdleMs: 10_000 }),
      ),
    );
    await until(() => times.length === 2, 8000);
    const waited = (times[1] ?? 0) - (times[0] ?? 0);
    expect(waited).toBeGreaterThanOrEqual(300);
    expect(waited).toBeLessThan(8000);
  });
});

describe('start anywhere', () => {
  it('starts a group at an instant, to the millisecond, or after an id', async () => {
    let now = 1_800_000_000_000;
    const minter = new IdMinter({ node: 1, now: () => now });
    queue = `${uniqueName('dl')}.start`;
    const stream = (await Bus.open(queue, { connection: conn, minter })).stream('log');
    const ids: EvtId[] = [];
    for (const step of [0, 1, 1, 5]) {
      now += step;
      ids.push(await stream.append({ at: String(now) }));
    }
    const t = 1_800_000_000_001;
    const got = async (group: string, start: ConsumeOptions['start'], n: number): Promise<EvtId[]> => {
      const seen: EvtId[] = [];
      await track(stream.consume(group, (e) => void seen.push(e.id), options({ start, consumer: group })));
      await until(() => seen.length === n);
      return seen;
    };
    expect(await got('at', { at: new Date(t) }, 3)).toEqual(ids.slice(1));
    expect(await got('at-ms', { at: t + 1 }, 2)).toEqual(ids.slice(2));
    expect(await got('after', { after: ids[1] as EvtId }, 2)).toEqual(ids.slice(2));
    await expect(stream.openGroup('bad', { after: 'nope' } as never)).rejects.toThrow(/after/);
    await expect(stream.openGroup('bad', { at: -1 })).rejects.toThrow(/at/);
  });
});

describe('lag', () => {
  it('reports undelivered, pending and the oldest pending age per group, and pending per consumer', async () => {
    const stream = await freshStream('lag');
    expect(await stream.lag()).toEqual([]);
    await stream.appendBatch(Array.from({ length: 5 }, (_, i) => ({ i: String(i) })));
    await stream.openGroup('g', 'head');
    await stream.openGroup('idle', 'new');
    await conn.command('XREADGROUP', 'GROUP', 'g', 'A', 'COUNT', '2', 'STREAMS', stream.key, '>');
    const [g] = await stream.lag('g');
    expect(g).toMatchObject({ group: 'g', undelivered: 3, pending: 2, consumers: [{ consumer: 'A', pending: 2 }] });
    expect(g?.oldestPendingAgeMs).toBeGreaterThanOrEqual(0);
    expect(g?.oldestPendingAgeMs).toBeLessThan(60_000);
    const all = await stream.lag();
    expect(all.map((l) => [l.group, l.undelivered, l.pending, l.oldestPendingAgeMs])).toEqual([
      ['g', 3, 2, expect.any(Number)],
      ['idle', 0, 0, null],
    ]);
  });
});

describe('tail', () => {
  it('iterates from the head, then blocks for new records; resumes after the last id', async () => {
    const stream = await freshStream('tail');
    const first = await stream.appendBatch([{ n: '0' }, { n: '1' }]);
    const tail = stream.tail({ from: 'head', blockMs: 100 });
    const got: string[] = [];
    const reading = (async () => {
      for await (const [, fields] of tail) {
        got.push(fields.n ?? '');
        if (got.length === 4) break;
      }
    })();
    await until(() => got.length === 2);
    await stream.appendBatch([{ n: '2' }, { n: '3' }]);
    await reading;
    expect(got).toEqual(['0', '1', '2', '3']);
    expect(tail.lastId).toBeDefined();

    const resumed = stream.tail({ from: { after: first[1] as EvtId } });
    const next = await resumed.next();
    expect(next.value?.[1]).toEqual({ n: '2' });
    await resumed.close();
    expect((await resumed.next()).done).toBe(true);

    const fresh = stream.tail({ blockMs: 50 });
    await fresh.ready();
    const pending = fresh.next();
    await stream.append({ n: 'new' });
    expect((await pending).value?.[1]).toEqual({ n: 'new' });
    await fresh.close();
    expect(() => stream.tail({ from: 'latest' as never })).toThrow(/from/);
  });
});

describe('concurrency', () => {
  it('runs up to `concurrency` handlers at once and acks each read with one XACK', async () => {
    const stream = await freshStream('concurrency');
    await stream.appendBatch(Array.from({ length: 20 }, (_, i) => ({ i: String(i) })));
    let inFlight = 0;
    let peak = 0;
    let done = 0;
    const c = await track(
      stream.consume(
        'g',
        async () => {
          peak = Math.max(peak, ++inFlight);
          await new Promise((resolve) => setTimeout(resolve, 10));
          inFlight--;
          done++;
        },
        options({ concurrency: 4, count: 20 }),
      ),
    );
    await until(() => done === 20);
    // The server drops the pending entries when it runs the XACK; the consumer counts them when the reply arrives.
    await until(async () => (await pendingCount(stream, 'g')) === 0 && c.stats().acked === 20);
    expect(peak).toBe(4);
    expect(c.stats()).toMatchObject({ delivered: 20, acked: 20 });
  });
});
