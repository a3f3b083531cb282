/**
 * Every time-like option of the queue and its workers is bounded: at its bound it is admitted,
 * past it the call is refused with a typed error naming the option and the bound, before anything
 * is written (the keyspace is the same before and after) or any worker connection opens.
 */
import { Connection, MAX_SPAN_MS, MAX_TIMER_MS, OptionRangeError } from '@echo/protocol/queue';
import { startRedis, uniqueName, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWorker, Queue, Worker } from '../src/index.js';

let server: RedisServer;
let conn: Connection;
let q: Queue<number>;
beforeAll(async () => {
  server = await startRedis();
  conn = await Connection.connect({ url: server.url });
  q = await Queue.open<number>(uniqueName('bounds'), { connection: conn });
  await q.enqueue(0);
}, 60_000);
afterAll(async () => {
  await conn.close();
  await server.stop();
});

async function keyspace(): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = (await conn.command('SCAN', cursor, 'MATCH', '*', 'COUNT', 1000)) as [string, string[]];
    cursor = next;
    keys.push(...batch.map(String));
  } while (cursor !== '0');
  return keys.sort();
}

/** An instant this far from the bound, either side: the check reads its own clock a moment later. */
const MARGIN = 60_000;
const SPAN = MAX_SPAN_MS;
const TIMER = MAX_TIMER_MS;
const ahead = (ms: number): number => Date.now() + ms;

interface Row {
  readonly option: string;
  /** Where the error says the option was passed. */
  readonly where: string;
  readonly max: number;
  /** The call with the option at its bound (none where it would wait that long). */
  readonly ok: (() => Promise<unknown>) | undefined;
  /** The same call past its bound. */
  readonly over: () => Promise<unknown>;
}

const started = async (opening: Promise<{ close(): Promise<void> }>): Promise<void> => {
  await (await opening).close();
};
const worker = (options: object): Promise<void> => started(Worker.start(q, () => undefined, { autorun: false, ...options }));
const batch = (options: object): Promise<void> => started(BatchWorker.start(q, () => 'ok', { autorun: false, ...options }));
const scheduled = async (): Promise<string> => (await q.enqueue(1, { delayMs: 60_000 })).id;

const rows: readonly Row[] = [
  { option: 'delayMs', where: 'enqueue options', max: SPAN, ok: () => q.enqueue(1, { delayMs: SPAN }), over: () => q.enqueue(1, { delayMs: 1e15 }) },
  { option: 'runAt', where: 'enqueue options', max: SPAN, ok: () => q.enqueue(1, { runAt: ahead(SPAN - MARGIN) }), over: () => q.enqueue(1, { runAt: ahead(SPAN + MARGIN) }) },
  { option: 'runAt', where: 'enqueue options', max: SPAN, ok: () => q.enqueue(1, { runAt: new Date(ahead(SPAN - MARGIN)) }), over: () => q.enqueue(1, { runAt: new Date(ahead(SPAN + MARGIN)) }) },
  { option: 'expireInMs', where: 'enqueue options', max: SPAN, ok: () => q.enqueue(1, { expireInMs: SPAN }), over: () => q.enqueue(1, { expireInMs: SPAN + 1 }) },
  { option: 'expireAt', where: 'enqueue options', max: SPAN, ok: () => q.enqueue(1, { expireAt: ahead(SPAN - MARGIN) }), over: () => q.enqueue(1, { expireAt: ahead(SPAN + MARGIN) }) },
  { option: 'timeoutMs', where: 'enqueue options', max: TIMER, ok: () => q.enqueue(1, { timeoutMs: TIMER }), over: () => q.enqueue(1, { timeoutMs: TIMER + 1 }) },
  { option: 'dedupTtlMs', where: 'enqueue options', max: SPAN, ok: () => q.enqueue(1, { dedupId: uniqueName('d'), dedupTtlMs: SPAN }), over: () => q.enqueue(1, { dedupId: uniqueName('d'), dedupTtlMs: SPAN + 1 }) },
  { option: 'keyRetentionMs', where: 'enqueue options', max: SPAN, ok: () => q.enqueue(1, { key: uniqueName('k'), keyRetentionMs: SPAN }), over: () => q.enqueue(1, { key: uniqueName('k'), keyRetentionMs: SPAN + 1 }) },
  { option: 'ms', where: 'backoff', max: SPAN, ok: () => q.enqueue(1, { attempts: 2, backoff: { type: 'fixed', ms: SPAN } }), over: () => q.enqueue(1, { attempts: 2, backoff: { type: 'fixed', ms: SPAN + 1 } }) },
  { option: 'cap', where: 'backoff', max: SPAN, ok: () => q.enqueue(1, { attempts: 2, backoff: { type: 'exponential', base: 1000, cap: SPAN } }), over: () => q.enqueue(1, { attempts: 2, backoff: { type: 'exponential', base: 1000, cap: SPAN + 1 } }) },
  { option: 'delayMs', where: 'enqueueMany item', max: SPAN, ok: () => q.enqueueMany([{ payload: 1, delayMs: SPAN }]), over: () => q.enqueueMany([{ payload: 1 }, { payload: 2, delayMs: SPAN + 1 }]) },
  { option: 'expireInMs', where: 'enqueueInLane options', max: SPAN, ok: () => q.enqueueInLane('a', 1, { expireInMs: SPAN }), over: () => q.enqueueInLane('a', 1, { expireInMs: SPAN + 1 }) },
  { option: 'ageMs', where: 'keep.completed', max: SPAN, ok: () => Queue.open(q.name, { connection: conn, keep: { completed: { ageMs: SPAN } } }), over: () => Queue.open(q.name, { connection: conn, keep: { completed: { ageMs: SPAN + 1 } } }) },
  { option: 'ageMs', where: 'keep.failed', max: SPAN, ok: () => q.setRetention({ failed: { ageMs: SPAN } }), over: () => q.setRetention({ failed: { ageMs: SPAN + 1 } }) },
  { option: 'everyMs', where: 'upsertScheduler cadence', max: SPAN, ok: () => q.upsertScheduler('s', { everyMs: SPAN }, 1), over: () => q.upsertScheduler('s2', { everyMs: SPAN + 1 }, 1) },
  { option: 'firstInMs', where: 'upsertScheduler cadence', max: SPAN, ok: () => q.upsertScheduler('s', { everyMs: 60_000, firstInMs: SPAN }, 1), over: () => q.upsertScheduler('s2', { everyMs: 60_000, firstInMs: SPAN + 1 }, 1) },
  { option: 'endAt', where: 'upsertScheduler options', max: SPAN, ok: () => q.upsertScheduler('s', { everyMs: 60_000 }, 1, { endAt: ahead(SPAN - MARGIN) }), over: () => q.upsertScheduler('s2', { everyMs: 60_000 }, 1, { endAt: ahead(SPAN + MARGIN) }) },
  { option: 'everyMs', where: 'registerRepeat options', max: SPAN, ok: () => q.registerRepeat('r', { everyMs: SPAN, template: 1 }), over: () => q.registerRepeat('r2', { everyMs: SPAN + 1, template: 1 }) },
  { option: 'olderThanMs', where: 'clean options', max: SPAN, ok: () => q.clean({ state: 'completed', olderThanMs: SPAN }), over: () => q.clean({ state: 'completed', olderThanMs: SPAN + 1 }) },
  { option: 'durationMs', where: 'setRateLimit limit', max: SPAN, ok: () => q.setRateLimit({ max: 1_000_000, durationMs: SPAN }), over: () => q.setRateLimit({ max: 1, durationMs: SPAN + 1 }) },
  { option: 'durationMs', where: 'laneRateLimit limit', max: SPAN, ok: () => q.laneRateLimit('a', { max: 1_000_000, durationMs: SPAN }), over: () => q.laneRateLimit('a', { max: 1, durationMs: SPAN + 1 }) },
  { option: 'ms', where: 'rateLimit', max: SPAN, ok: () => q.rateLimit(SPAN), over: () => q.rateLimit(SPAN + 1) },
  { option: 'delayMs', where: 'changeDelay', max: SPAN, ok: async () => q.changeDelay(await scheduled(), SPAN), over: () => q.changeDelay('JOBAAAAAAAAAAA', SPAN + 1) },
  { option: 'timeoutMs', where: 'waitUntilFinished options', max: TIMER, ok: undefined, over: () => q.waitUntilFinished('JOBAAAAAAAAAAA', { timeoutMs: TIMER + 1 }) },
  { option: 'blockMs', where: 'journal options', max: TIMER, ok: () => q.journal({ blockMs: TIMER }).close(), over: () => Promise.resolve().then(() => q.journal({ blockMs: TIMER + 1 })) },
  { option: 'leaseMs', where: 'Worker.start options', max: TIMER, ok: () => worker({ leaseMs: TIMER }), over: () => worker({ leaseMs: TIMER + 1 }) },
  { option: 'extendEveryMs', where: 'Worker.start options', max: TIMER, ok: () => worker({ leaseMs: TIMER, extendEveryMs: TIMER - 1 }), over: () => worker({ extendEveryMs: TIMER + 1 }) },
  { option: 'blockMs', where: 'Worker.start options', max: TIMER, ok: () => worker({ blockMs: TIMER }), over: () => worker({ blockMs: TIMER + 1 }) },
  { option: 'maintenanceMs', where: 'Worker.start options', max: TIMER, ok: () => worker({ maintenanceMs: TIMER }), over: () => worker({ maintenanceMs: TIMER + 1 }) },
  { option: 'closeTimeoutMs', where: 'Worker.start options', max: TIMER, ok: () => worker({ closeTimeoutMs: TIMER }), over: () => worker({ closeTimeoutMs: TIMER + 1 }) },
  { option: 'ms', where: 'backoff', max: SPAN, ok: () => worker({ backoff: { type: 'fixed', ms: SPAN } }), over: () => worker({ backoff: { type: 'fixed', ms: SPAN + 1 } }) },
  { option: 'leaseMs', where: 'BatchWorker.start options', max: TIMER, ok: () => batch({ leaseMs: TIMER }), over: () => batch({ leaseMs: TIMER + 1 }) },
  { option: 'timeoutMs', where: 'BatchWorker.start options.shape', max: TIMER, ok: () => batch({ shape: { minSize: 2, timeoutMs: TIMER } }), over: () => batch({ shape: { minSize: 2, timeoutMs: TIMER + 1 } }) },
  { option: 'pollMs', where: 'BatchWorker.start options.shape', max: TIMER, ok: () => batch({ shape: { minSize: 2, timeoutMs: 100, pollMs: TIMER } }), over: () => batch({ shape: { minSize: 2, timeoutMs: 100, pollMs: TIMER + 1 } }) },
];

describe('time-like options are bounded', () => {
  it.each(rows)('$where: $option at the bound admitted, past it refused and nothing written', async (row) => {
    await row.ok?.();
    const before = await keyspace();
    const clients = String(await conn.command('CLIENT', 'LIST')).split('\n').length;
    const error: unknown = await row.over().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OptionRangeError);
    const refused = error as OptionRangeError;
    expect(refused.option).toBe(row.option);
    expect(refused.where).toBe(row.where);
    expect(refused.max).toBe(row.max);
    expect(refused.message).toContain(String(row.max));
    expect(await keyspace()).toEqual(before);
    expect(String(await conn.command('CLIENT', 'LIST')).split('\n').length).toBe(clients);
  });
});
