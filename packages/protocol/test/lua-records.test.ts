import { uniqueName, useRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Connection,
  MalformedReplyError,
  cacheLogKey,
  encodeEntryFrame,
  execute,
  mintId,
  parseCoherenceEntry,
  parseDeadLetterRecord,
  parseEntryFrame,
  parseOutboxEntry,
  parseOutcomesEntry,
  parseStreamEntries,
  parseWakeToken,
  queueKeys,
  transitions as t,
  type BrandedId,
  type CoherenceEntry,
} from './support.js';

let conn: Connection;

beforeAll(async () => {
  conn = await Connection.connect((await useRedis()).url);
});
afterAll(async () => {
  await conn.close();
});

describe('the coherence log entry', () => {
  it('reads each op the scripts write', () => {
    expect(parseCoherenceEntry('1-0', ['v', 'VER', 'o', 's', 'k', 'a'])).toEqual({ id: '1-0', version: 'VER', op: 's', keys: ['a'] });
    expect(parseCoherenceEntry('1-1', ['v', 'VER', 'o', 'd', 'k', 'a\nb'])).toMatchObject({ op: 'd', keys: ['a', 'b'] });
    expect(parseCoherenceEntry('1-2', ['v', 'VER', 'o', 'c', 'k', ''])).toMatchObject({ op: 'c', keys: [] });
    expect(parseCoherenceEntry('1-3', ['v', '', 'o', 'r', 'k', 'a'])).toMatchObject({ op: 'r', version: '' });
  });

  it('answers undefined for an entry it cannot read (unknown op, missing field)', () => {
    expect(parseCoherenceEntry('1-0', ['v', 'VER', 'o', 'x', 'k', 'a'])).toBeUndefined();
    expect(parseCoherenceEntry('1-0', ['v', 'VER', 'k', 'a'])).toBeUndefined();
    expect(parseCoherenceEntry('1-0', ['o', 's', 'k', 'a'])).toBeUndefined();
    expect(parseCoherenceEntry('1-0', ['v', 'VER', 'o', 's'])).toBeUndefined();
  });

  it('reads what cache_write, cache_delete, cache_tag_delete, cache_release and cache_clear append', async () => {
    const ns = uniqueName('ns');
    const v1 = mintId('VER');
    const frame = encodeEntryFrame(v1, 0, 'value');
    const token = uniqueName('lease');
    await execute(conn, t.cacheRead({ namespace: ns, key: 'held', token, leaseMs: 10_000 }));
    await execute(conn, t.cacheWrite({ namespace: ns, key: 'a', frame, px: 0, maxlen: 100, tags: ['tg'] }));
    await execute(conn, t.cacheDelete({ namespace: ns, keys: ['a', 'b'], version: mintId('VER'), maxlen: 100 }));
    await execute(conn, t.cacheWrite({ namespace: ns, key: 'c', frame: encodeEntryFrame(mintId('VER'), 0, 'x'), px: 0, maxlen: 100, tags: ['tg'] }));
    await execute(conn, t.cacheTagDelete({ namespace: ns, tag: 'tg', keys: ['c'], version: mintId('VER'), maxlen: 100 }));
    await execute(conn, t.cacheRelease({ namespace: ns, key: 'held', token, maxlen: 100 }));
    await execute(conn, t.cacheClear({ namespace: ns, version: mintId('VER'), maxlen: 100 }));
    const log = parseStreamEntries(await conn.command('XRANGE', cacheLogKey(ns), '-', '+'));
    const read = log.map((e) => parseCoherenceEntry(e.id, e.fields ?? []));
    expect(read.map((e) => e && [e.op, e.keys])).toEqual([
      ['s', ['a']],
      ['d', ['a', 'b']],
      ['s', ['c']],
      ['d', ['c']],
      ['r', ['held']],
      ['c', []],
    ]);
    expect((read[0] as CoherenceEntry).version).toBe(v1);
  });
});

describe('the keyed entry frame', () => {
  const version = '0123456789ABCD' as BrandedId;

  it('round-trips version, soft expiry and value bytes', () => {
    const frame = encodeEntryFrame(version, 1_700_000_000_123, Buffer.from([0, 255, 10]));
    expect(frame.toString('latin1', 0, 27)).toBe('0123456789ABCD1700000000123');
    expect(parseEntryFrame(frame)).toEqual({ version, expiresAt: 1_700_000_000_123, bytes: Buffer.from([0, 255, 10]) });
    expect(parseEntryFrame(frame.toString('hex'), true)).toEqual({ version, expiresAt: 1_700_000_000_123, bytes: Buffer.from([0, 255, 10]) });
    expect(parseEntryFrame(encodeEntryFrame(version, 0, 'text'))?.bytes.toString()).toBe('text');
  });

  it('answers undefined for a frame shorter than its header or with a non-digit expiry', () => {
    expect(parseEntryFrame(Buffer.from('short'))).toBeUndefined();
    expect(parseEntryFrame(`${version}12345678901x2value`)).toBeUndefined();
  });

  it('reads the frame cache_read answers, as text and as hex', async () => {
    const ns = uniqueName('ns');
    const v = mintId('VER');
    await execute(conn, t.cacheWrite({ namespace: ns, key: 'k', frame: encodeEntryFrame(v, Date.now() + 60_000, Buffer.from([1, 2, 200])), px: 0, maxlen: 10 }));
    const hex = await execute(conn, t.cacheRead({ namespace: ns, key: 'k', leaseMs: 1000, hex: true }));
    expect(parseEntryFrame(hex.frame ?? '', true)).toMatchObject({ version: v, bytes: Buffer.from([1, 2, 200]) });
    await execute(conn, t.cacheWrite({ namespace: ns, key: 't', frame: encodeEntryFrame(v, 0, 'plain'), px: 0, maxlen: 10 }));
    const text = await execute(conn, t.cacheRead({ namespace: ns, key: 't', leaseMs: 1000 }));
    expect(text.status).toBe('fresh');
    expect(parseEntryFrame(text.frame ?? '')).toMatchObject({ version: v, expiresAt: 0 });
  });
});

describe('the flow outbox entry', () => {
  const pid = mintId('JOB');
  const cid = mintId('JOB');

  it('reads a completion, whose result may hold NULs', () => {
    expect(parseOutboxEntry(['pq', pid, cid, 'r\0s'].join('\0'))).toEqual({ kind: 'complete', parentQueue: 'pq', parentId: pid, childId: cid, result: 'r\0s' });
  });

  it('reads a failure, an unknown policy as fp', () => {
    expect(parseOutboxEntry(['', 'fail', 'pq', pid, cid, 'id', 'boom\0x'].join('\0'))).toEqual({ kind: 'fail', parentQueue: 'pq', parentId: pid, childId: cid, policy: 'id', error: 'boom\0x' });
    expect(parseOutboxEntry(['', 'fail', 'pq', pid, cid, '??', 'e'].join('\0'))).toMatchObject({ policy: 'fp' });
  });

  it.each([
    ['too few fields', ['pq', pid].join('\0')],
    ['a bad queue name', ['p q', pid, cid, 'r'].join('\0')],
    ['a bad parent id', ['pq', 'x', cid, 'r'].join('\0')],
    ['an unknown marker', ['', 'done', 'pq', pid, cid, 'fp', 'e'].join('\0')],
  ])('answers undefined for %s', (_what, entry) => {
    expect(parseOutboxEntry(entry)).toBeUndefined();
  });
});

describe('the wake token', () => {
  it('reads a due hint and a plain wake-up', () => {
    expect(parseWakeToken('d:250')).toEqual({ kind: 'due', inMs: 250 });
    expect(parseWakeToken('1')).toEqual({ kind: 'wake' });
    expect(parseWakeToken('d:x')).toEqual({ kind: 'wake' });
  });

  it('reads the due hint schedule pushes when a job becomes the schedule head', async () => {
    const queue = uniqueName('q');
    await execute(conn, t.schedule({ queue, id: mintId('JOB'), payload: '{}', inMs: 60_000, wake: true }));
    const tokens = (await conn.command('LRANGE', queueKeys(queue).wake, 0, -1)) as string[];
    const parsed = tokens.map(parseWakeToken);
    expect(parsed).toHaveLength(1);
    expect(parsed[0]).toMatchObject({ kind: 'due' });
    const inMs = parsed[0]?.kind === 'due' ? parsed[0].inMs : -1;
    expect(inMs).toBeGreaterThan(50_000);
    expect(inMs).toBeLessThanOrEqual(60_000);
  });
});

describe('the dead-letter record', () => {
  const head = ['id', 'EVT', 'xid', '5-0', 'group', 'g', 'consumer', 'c', 'reason', 'boom', 'attempts', '3'];

  it('reads the head by position and keeps the entry fields in order', () => {
    expect(parseDeadLetterRecord('1700000000000-0', [...head, 'reason', 'user field', 'k', 'v'])).toEqual({
      record: '1700000000000-0',
      id: 'EVT',
      xid: '5-0',
      group: 'g',
      consumer: 'c',
      reason: 'boom',
      attempts: 3,
      deadAt: 1_700_000_000_000,
      fields: ['reason', 'user field', 'k', 'v'],
    });
  });

  it('refuses a record whose head is not the six fields in order', () => {
    expect(() => parseDeadLetterRecord('1-0', ['xid', '5-0'])).toThrow(MalformedReplyError);
    expect(() => parseDeadLetterRecord('1-0', ['id', 'E', 'group', 'g', 'xid', '5-0', 'consumer', 'c', 'reason', 'r', 'attempts', '1'])).toThrow(MalformedReplyError);
  });
});

describe('the outcomes entry', () => {
  it('reads every job of an entry by position: id, token and result', () => {
    expect(parseOutcomesEntry('1700000000000-3', ['jobs', '3', 'jobs', '2', 'b', '1:r:x', 'c', '4:'])).toEqual({
      entry: '1700000000000-3',
      at: 1_700_000_000_000,
      outcomes: [
        { job: 'jobs', token: 2, verdict: 'completed', result: undefined },
        { job: 'b', token: 1, verdict: 'completed', result: 'r:x' },
        { job: 'c', token: 4, verdict: 'completed', result: '' },
      ],
    });
  });

  it('reads the older one-job shape, its token unknown', () => {
    expect(parseOutcomesEntry('5-0', ['job', 'a', 'result', 'r']).outcomes).toEqual([{ job: 'a', token: undefined, verdict: 'completed', result: 'r' }]);
    expect(parseOutcomesEntry('5-0', ['job', 'a']).outcomes).toEqual([{ job: 'a', token: undefined, verdict: 'completed', result: undefined }]);
  });

  it('refuses an entry of neither shape', () => {
    expect(() => parseOutcomesEntry('1-0', ['jobs', '2', 'a', '1'])).toThrow(MalformedReplyError);
    expect(() => parseOutcomesEntry('1-0', ['jobs', '1', 'a', 'x:1'])).toThrow(MalformedReplyError);
    expect(() => parseOutcomesEntry('1-0', ['k', 'v'])).toThrow(MalformedReplyError);
  });

  it('reads what complete and complete_batch append: one entry per call, a repeated id once', async () => {
    const queue = uniqueName('q');
    const ids = [mintId('JOB'), mintId('JOB'), mintId('JOB')];
    for (const id of ids) await execute(conn, t.enqueue({ queue, id, payload: '{}' }));
    const claimed = await execute(conn, t.claimBatch({ queue, leaseMs: 30_000, size: 3 }));
    const [a, b, c] = claimed;
    if (!a || !b || !c) throw new Error('claimed fewer than 3');
    await execute(conn, t.complete({ queue, job: a, result: 'one' }));
    // A repeat in the same call answers gone, as once the row is gone: the rows go in one DEL at the end.
    const codes = await execute(conn, t.completeBatch({ queue, jobs: [{ id: b.id, attempts: b.attempts }, { id: c.id, attempts: c.attempts, result: '"two"' }, { id: b.id, attempts: b.attempts }] }));
    expect(codes).toEqual(['ok', 'ok', 'gone']);
    expect(await conn.command('EXISTS', queueKeys(queue).job(b.id), queueKeys(queue).job(c.id))).toBe(0);
    expect(await conn.command('HGET', queueKeys(queue).metricsCompleted, 'count')).toBe('3');
    const read = parseStreamEntries(await conn.command('XRANGE', queueKeys(queue).outcomes, '-', '+')).map((e) => parseOutcomesEntry(e.id, e.fields ?? []));
    expect(read.map((e) => e.outcomes)).toEqual([
      [{ job: a.id, token: a.attempts, verdict: 'completed', result: 'one' }],
      [
        { job: b.id, token: b.attempts, verdict: 'completed', result: undefined },
        { job: c.id, token: c.attempts, verdict: 'completed', result: '"two"' },
      ],
    ]);
  });
});
