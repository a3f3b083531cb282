/**
 * Every producer, read and admin entry point refuses an option it does not read: a typed error that
 * names the key (and, for a name BullMQ users bring, the option that means it here), before
 * anything is written: the keyspace is the same before and after.
 */
import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, MalformedIdError, UnknownOptionError, UnknownStateError } from '@echo/protocol/queue';
import { Queue } from '../src/index.js';

let conn: Connection;
let q: Queue<{ n: number }>;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url });
  q = await Queue.open(uniqueName('strict'), { connection: conn });
  // Something on the server, so "unchanged" compares a real keyspace.
  await q.enqueue({ n: 0 });
  await q.upsertScheduler('hourly', { everyMs: 3_600_000 }, { n: 1 });
}, 60_000);
afterAll(async () => {
  await conn.close();
});

async function keyspace(): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = (await conn.command('SCAN', cursor, 'MATCH', '*', 'COUNT', 1000)) as [string, string[]];
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys.sort();
}

/** Casts a foreign options object past the types, as a JavaScript caller or a spread config does. */
function loose(options: Record<string, unknown>): never {
  return options as never;
}

interface Row {
  readonly call: () => Promise<unknown>;
  /** The refused key, as the error names it. */
  readonly key: string;
  /** Words of the hint; none for a plain typo. */
  readonly hint?: string;
}

const rows: Record<string, Row> = {
  'Queue.open: a typo': { call: () => Queue.open(q.name, loose({ connection: conn, bogus: 1 })), key: 'bogus' },
  'Queue.open: BullMQ prefix': { call: () => Queue.open(q.name, loose({ connection: conn, prefix: 'bull' })), key: 'prefix', hint: 'emq:{' },
  'Queue.open: BullMQ defaultJobOptions': { call: () => Queue.open(q.name, loose({ connection: conn, defaultJobOptions: { attempts: 3 } })), key: 'defaultJobOptions', hint: 'maxAttempts' },
  'Queue.open: BullMQ limiter': { call: () => Queue.open(q.name, loose({ connection: conn, limiter: { max: 1, duration: 1000 } })), key: 'limiter', hint: 'setRateLimit' },
  'Queue.open: removeOnComplete': { call: () => Queue.open(q.name, loose({ connection: conn, removeOnComplete: 10 })), key: 'removeOnComplete', hint: 'keep: { completed' },
  'Queue.open: connection given a URL': { call: () => Queue.open(q.name, loose({ connection: 'redis://127.0.0.1:1' })), key: 'connection', hint: 'as connect' },
  'Queue.open: connection given ioredis options': { call: () => Queue.open(q.name, loose({ connection: { host: '127.0.0.1', port: 1 } })), key: 'connection', hint: 'as connect' },
  'Queue.open: keep.completed age': { call: () => Queue.open(q.name, { connection: conn, keep: { completed: loose({ age: 60 }) } }), key: 'age', hint: 'ageMs' },
  'Queue.open: keep removeOnFail': { call: () => Queue.open(q.name, { connection: conn, keep: loose({ removeOnFail: 5 }) }), key: 'removeOnFail', hint: 'failed' },
  'enqueue: BullMQ delay': { call: () => q.enqueue({ n: 1 }, loose({ delay: 1000 })), key: 'delay', hint: 'delayMs' },
  'enqueue: BullMQ jobId': { call: () => q.enqueue({ n: 1 }, loose({ jobId: 'order-1' })), key: 'jobId', hint: 'key for any string' },
  'enqueue: removeOnComplete': { call: () => q.enqueue({ n: 1 }, loose({ removeOnComplete: true })), key: 'removeOnComplete', hint: 'setRetention' },
  'enqueue: removeOnFail': { call: () => q.enqueue({ n: 1 }, loose({ removeOnFail: 10 })), key: 'removeOnFail', hint: 'keep: { failed' },
  'enqueue: repeat': { call: () => q.enqueue({ n: 1 }, loose({ repeat: { every: 1000 } })), key: 'repeat', hint: 'upsertScheduler' },
  'enqueueInLane: lifo': { call: () => q.enqueueInLane('t', { n: 1 }, loose({ lifo: true })), key: 'lifo', hint: 'admission order' },
  'enqueue: stamp': { call: () => q.enqueue({ n: 1 }, loose({ stamp: Date.now() })), key: 'stamp' },
  'enqueue: ttl': { call: () => q.enqueue({ n: 1 }, loose({ ttl: 1000 })), key: 'ttl', hint: 'expireInMs' },
  'enqueue: expireIn': { call: () => q.enqueue({ n: 1 }, loose({ expireIn: 1000 })), key: 'expireIn', hint: 'expireInMs' },
  'enqueueInLane: ttl': { call: () => q.enqueueInLane('t', { n: 1 }, loose({ ttl: 1000 })), key: 'ttl', hint: 'expireInMs' },
  'enqueue: parent': { call: () => q.enqueue({ n: 1 }, loose({ parent: { id: 'x', queue: 'q' } })), key: 'parent', hint: 'addFlow' },
  'enqueue: deduplication': { call: () => q.enqueue({ n: 1 }, loose({ deduplication: { id: 'd' } })), key: 'deduplication', hint: 'dedupId' },
  'enqueue: keepLogs': { call: () => q.enqueue({ n: 1 }, loose({ keepLogs: 10 })), key: 'keepLogs', hint: 'addLog' },
  'enqueue: stackTraceLimit': { call: () => q.enqueue({ n: 1 }, loose({ stackTraceLimit: 5 })), key: 'stackTraceLimit', hint: 'not supported' },
  'enqueue: sizeLimit': { call: () => q.enqueue({ n: 1 }, loose({ sizeLimit: 1024 })), key: 'sizeLimit', hint: 'maxPayloadBytes' },
  'enqueue: BullMQ backoff { type, delay }': { call: () => q.enqueue({ n: 1 }, loose({ attempts: 3, backoff: { type: 'exponential', delay: 1000 } })), key: 'delay', hint: 'exponential(base, cap)' },
  'enqueue: a typo': { call: () => q.enqueue({ n: 1 }, loose({ atempts: 3 })), key: 'atempts' },
  'enqueueMany: item option': { call: () => q.enqueueMany([{ payload: { n: 1 } }, loose({ payload: { n: 2 }, delay: 5 })]), key: 'delay', hint: 'delayMs' },
  'enqueueMany: BullMQ data/opts item': { call: () => q.enqueueMany([loose({ name: 'a', data: { n: 1 } })]), key: 'data', hint: 'payload' },
  'enqueueInLane: delayMs': { call: () => q.enqueueInLane('tenantA', { n: 1 }, loose({ delayMs: 10 })), key: 'delayMs', hint: 'lane' },
  'enqueueInLane: jobId': { call: () => q.enqueueInLane('tenantA', { n: 1 }, loose({ jobId: 'x' })), key: 'jobId', hint: 'key' },
  'addFlow: child BullMQ queueName': { call: () => q.addFlow({ parent: { payload: { n: 0 } }, children: [loose({ payload: { n: 1 }, queueName: 'other' })] }), key: 'queueName', hint: 'queue here' },
  'enqueue: continueParentOnFailure': { call: () => q.enqueue({ n: 1 }, loose({ continueParentOnFailure: true })), key: 'continueParentOnFailure', hint: 'addFlow' },
  'addFlow: parent opts': { call: () => q.addFlow({ parent: loose({ payload: { n: 0 }, opts: {} }), children: [{ payload: { n: 1 } }] }), key: 'opts' },
  'addFlowBulk: spec typo': { call: () => q.addFlowBulk([{ parent: { payload: { n: 0 } }, children: [{ payload: { n: 1 } }] }, loose({ parent: { payload: { n: 0 } }, children: [{ payload: { n: 1 } }], name: 'x' })]), key: 'name' },
  'upsertScheduler: BullMQ every/pattern': { call: () => q.upsertScheduler('s1', loose({ pattern: '* * * * *' }), { n: 1 }), key: 'pattern', hint: 'cron' },
  'upsertScheduler: options startDate': { call: () => q.upsertScheduler('s1', { everyMs: 1000 }, { n: 1 }, loose({ startDate: new Date() })), key: 'startDate', hint: 'startAt' },
  'registerRepeat: every': { call: () => q.registerRepeat('r1', loose({ every: 1000, template: { n: 1 } })), key: 'every', hint: 'everyMs' },
  'setRetention: age': { call: () => q.setRetention({ failed: loose({ count: 5, age: 60 }) }), key: 'age', hint: 'ageMs' },
  'clean: BullMQ grace': { call: () => q.clean(loose({ state: 'dead', olderThanMs: 0, grace: 10 })), key: 'grace', hint: 'olderThanMs' },
  'retryJobs: timestamp': { call: () => q.retryJobs(loose({ state: 'dead', timestamp: 1 })), key: 'timestamp', hint: 'not supported' },
  'listJobs: start/end': { call: () => q.listJobs('pending', loose({ start: 0, end: 10 })), key: 'start', hint: 'offset' },
  'drain: delayed': { call: () => q.drain(loose({ delayed: true })), key: 'delayed', hint: 'includeScheduled' },
  'obliterate: count': { call: () => q.obliterate(loose({ force: true, count: 100 })), key: 'count', hint: 'budget' },
  'remove: removeChildren': { call: () => q.remove('JOB0000000000000', loose({ removeChildren: true })), key: 'removeChildren', hint: 'not supported' },
  'waitUntilFinished: ttl': { call: () => q.waitUntilFinished('JOB0000000000000', loose({ ttl: 1000 })), key: 'ttl', hint: 'timeoutMs' },
  'journal: lastEventId': { call: () => Promise.resolve().then(() => q.journal(loose({ lastEventId: '0' }))), key: 'lastEventId', hint: 'from: { after' },
  'setEvents: maxLen': { call: () => q.setEvents(loose({ journal: 100, maxLen: 100 })), key: 'maxLen', hint: 'journal: maxLen' },
  'setRateLimit: BullMQ duration': { call: () => q.setRateLimit(loose({ max: 1, duration: 1000 })), key: 'duration', hint: 'durationMs' },
  'laneRateLimit: BullMQ duration': { call: () => q.laneRateLimit('tenantA', loose({ max: 1, duration: 1000 })), key: 'duration', hint: 'durationMs' },
};

describe('strict options on the producer, read and admin entry points', () => {
  for (const [label, row] of Object.entries(rows)) {
    it(label, async () => {
      const before = await keyspace();
      const error: unknown = await row.call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UnknownOptionError);
      const refused = error as UnknownOptionError;
      expect(refused.option).toBe(row.key);
      expect(refused.message).toContain(row.key);
      if (row.hint !== undefined) {
        expect(refused.hint).toContain(row.hint);
        expect(refused.message).toContain(row.hint);
      }
      expect(await keyspace()).toEqual(before);
    });
  }

  it('an id that is not a branded id names { key } and writes nothing', async () => {
    const before = await keyspace();
    const error: unknown = await q.enqueue({ n: 1 }, { id: 'order-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MalformedIdError);
    expect((error as Error).message).toContain("{ key: \"order-1\" }");
    const many: unknown = await q.enqueueMany([{ payload: { n: 1 }, id: 'order-2' }]).catch((e: unknown) => e);
    expect((many as Error).message).toContain("{ key: \"order-2\" }");
    expect(await keyspace()).toEqual(before);
  });

  it('the known options still pass', async () => {
    const { id } = await q.enqueue({ n: 2 }, { delayMs: 60_000, attempts: 2, name: 'later', key: uniqueName('k') });
    expect((await q.getJob(id))?.state).toBe('scheduled');
  });
});

describe('count names agree with the other reads', () => {
  it("counts 'scheduled' as getState, listJobs, the CLI and the dashboard name it", async () => {
    const { id } = await q.enqueue({ n: 3 }, { delayMs: 60_000 });
    expect(await q.getState(id)).toBe('scheduled');
    const counted = await q.counts('pending', 'scheduled');
    expect(counted.scheduled).toBeGreaterThanOrEqual(1);
    expect((await q.listJobs('scheduled')).total).toBe(counted.scheduled);
    await q.remove(id);
  });

  it("listJobs('delayed') names 'scheduled'", async () => {
    const error: unknown = await q.listJobs('delayed' as never).catch((e: unknown) => e);
    expect((error as Error).message).toContain("'scheduled'");
  });

  for (const [name, hint] of [
    ['schedule', "'scheduled'"],
    ['delayed', "'scheduled'"],
    ['waiting', "'pending'"],
    ['waiting-children', "'awaiting_children'"],
  ] as const) {
    it(`refuses the name ${name} with the one to use`, async () => {
      const error: unknown = await q.counts(name as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnknownStateError);
      expect((error as UnknownStateError).hint).toContain(hint);
      expect((error as Error).message).toContain(hint);
    });
  }
});
