import { uniqueName, useRedis, type RedisTarget } from '@echo/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, execute, MalformedReplyError, mintId, queueKeys, reads, transitions as t, type JobId, type QueueKeys } from './support.js';
import { SAMPLE, sampleReads } from './queue-read-samples.js';

let target: RedisTarget;
let conn: Connection;
let keys: QueueKeys;
let samples: ReturnType<typeof sampleReads>;
const id: JobId = mintId('JOB');
const child: JobId = mintId('JOB');
const clients: Redis[] = [];

beforeAll(async () => {
  target = await useRedis();
  conn = await Connection.connect(target.url);
  const queue = uniqueName('qreads');
  keys = queueKeys(queue);
  samples = sampleReads(keys, id);
  // What the scripts write, written by the scripts; the [TS] records no script here writes alone are
  // laid out by hand in their documented format.
  await execute(conn, t.enqueue({ queue, id, payload: '"x"' }));
  await execute(conn, t.addLog({ queue, id, line: 'first' }));
  await execute(conn, t.pauseQueue({ queue }));
  await conn.command('HSET', keys.meta, 'concurrency', '3');
  await execute(conn, t.schedulerUpsert({ queue, name: SAMPLE.scheduler, cadence: { cron: '0 * * * *', tz: 'UTC' }, template: '"t"', first: { at: 2_000_000_000_000 } }));
  await conn.command('RPUSH', keys.jobSub(id, 'attempts'), '1\ts\t100', '1\te\t150\tretried\tboom');
  await conn.command('SET', keys.dedup(SAMPLE.dedupId), id);
  await conn.command('ZADD', keys.deadAt, 5, child);
  await conn.command('ZADD', keys.completed, 500, child, 2000, id);
  await conn.command('HSET', keys.metricsCompleted, 'count', '7');
  await conn.command('HSET', keys.metricsFailed, 'count', '1', 'm:100', '2');
  await conn.command('HSET', keys.jobSub(id, 'processed'), child, '1');
  await conn.command('SET', keys.jobSub(id, 'dependencies'), '2');
  await conn.command('RPUSH', keys.flowOutbox, `${queue}\0${id}\0${child}\0done`, 'junk');
  await conn.command('XADD', keys.outcomes, '*', 'job', child, 'result', 'r');
});
afterAll(async () => {
  await conn.close();
  for (const c of clients) c.disconnect();
});

/** What each read answers on this data, whatever the reply's shape. */
function expected(): Record<string, unknown> {
  return {
    job: expect.objectContaining({ state: 'pending', payload: '"x"', attempts: 0 }),
    jobExists: true,
    jobLogs: ['first'],
    jobAttempts: [{ attempt: 1, startedAt: 100, endedAt: 150, outcome: 'retried', durationMs: 50, error: 'boom' }],
    jobVerdict: { state: 'pending', result: undefined, lastError: undefined },
    jobToken: { state: 'pending', attempts: 0 },
    dedup: id,
    setSize: 0,
    setPage: [{ id: child, score: 5 }],
    newestPending: [id],
    scoredUpTo: [child],
    meta: { paused: true, concurrency: 3, max: 0 },
    paused: true,
    metricCount: 7,
    metricPoints: 0,
    minuteCounts: new Map([[100, 2]]),
    repeatNames: [SAMPLE.scheduler],
    repeatCount: 1,
    repeatSchedule: [{ name: SAMPLE.scheduler, next: 2_000_000_000_000 }],
    scheduler: expect.objectContaining({ cron: '0 * * * *', tz: 'UTC', count: 0, template: '"t"' }),
    cronCadence: { cron: '0 * * * *', tz: 'UTC' },
    childrenValues: { [child]: '1' },
    ignoredFailures: {},
    openChildren: 2,
    flowOutbox: [expect.objectContaining({ kind: 'complete', parentId: id, childId: child, result: 'done' }), undefined],
    outcomes: [{ job: child, token: undefined, verdict: 'completed', result: 'r' }],
    time: expect.any(Number),
    probe: true,
    // A standalone server has no replica to confirm.
    replicated: 0,
    // The wake list is empty here: the pop times out.
    wake: null,
  };
}

type Send = (command: string, args: readonly (string | number | Buffer)[]) => Promise<unknown>;

function driver(options: Parameters<RedisTarget['client']>[0]): Send {
  const client = target.client(options) as unknown as Redis;
  clients.push(client);
  return (command, args) => client.call(command, ...args);
}

const shapes: [string, () => Send][] = [
  ['RESP2', () => driver({ protocol: 2 })],
  ['RESP3 (default mapping)', () => driver({ protocol: 3 })],
  ['RESP3 (resp3 mapping)', () => driver({ protocol: 3, replyMapping: 'resp3' })],
  ['the Connection', () => (command, args) => conn.command(command, ...args)],
];

describe.each(shapes)('the queue reads against a live server over %s', (_shape, make) => {
  it('parse every reply to the same records', async () => {
    const send = make();
    const want = expected();
    for (const [name, r] of Object.entries(samples)) expect(r.parse(await send(r.command, r.args)), name).toEqual(want[name]);
  });
});

describe('sent through the Connection', () => {
  it('one read, and several pipelined, each settling on its own', async () => {
    expect(await reads.sendRead(conn, reads.queue.paused({ keys }))).toBe(true);
    const [exists, gone] = await reads.sendReads(conn, [reads.queue.jobExists({ keys, id }), reads.queue.jobExists({ keys, id: mintId('JOB') })]);
    expect([exists, gone]).toEqual([{ ok: true, value: true }, { ok: true, value: false }]);
  });

  it('a stored value not in the record format fails only its member, with MalformedReplyError', async () => {
    await conn.command('SET', keys.jobSub(child, 'dependencies'), 'many');
    const [bad, good] = await reads.sendReads(conn, [reads.queue.openChildren({ keys, parent: child }), reads.queue.openChildren({ keys, parent: id })]);
    expect(bad.ok ? bad.value : bad.error).toBeInstanceOf(MalformedReplyError);
    expect(good).toEqual({ ok: true, value: 2 });
    await expect(reads.sendRead(conn, reads.queue.openChildren({ keys, parent: child }))).rejects.toThrow(/malformed GET reply/);
  });
});
