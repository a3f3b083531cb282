import { useRedis, uniqueName } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { Connection, hashReply, mintId, parseJobRow, parseMeta, parseRepeatRecord, queueKeys, scripts } from './support.js';

describe('job row records', () => {
  it('reads a row written by the protocol, typed, keeping unknown fields aside', async () => {
    const conn = await Connection.connect((await useRedis()).url);
    try {
      const k = queueKeys(uniqueName('rec'));
      const id = mintId('JOB');
      await conn.run(scripts().enqueue, [k.job(id), k.pending, k.events, k.meta, k.journal], [id, '{"a":1}']);
      await conn.command('HSET', k.job(id), 'written_by_a_newer_minor', 'x');
      const row = parseJobRow(hashReply(await conn.command('HGETALL', k.job(id))));
      expect(row).toMatchObject({ state: 'pending', rawState: 'pending', attempts: 0, payload: '{"a":1}', stalled: 0, parentPolicy: 'fp' });
      expect(row?.unknown).toEqual({ written_by_a_newer_minor: 'x' });
      expect(parseJobRow(hashReply(await conn.command('HGETALL', k.job(mintId('JOB')))))).toBeUndefined();
    } finally {
      await conn.close();
    }
  });

  it('keeps the state set closed and reads an unknown policy as fp', () => {
    const row = parseJobRow({ state: 'exploded', attempts: '2', payload: '', parent_policy: 'zz' });
    expect(row?.state).toBeUndefined();
    expect(row?.rawState).toBe('exploded');
    expect(row?.parentPolicy).toBe('fp');
    expect(parseJobRow({ state: 'awaiting_children', parent_policy: 'id' })).toMatchObject({ state: 'awaiting_children', parentPolicy: 'id' });
  });

  it('reads meta and repeat records, refusing an incomplete repeat', () => {
    expect(parseMeta({ paused: '1', concurrency: '4' })).toEqual({ paused: true, concurrency: 4, max: 0 });
    expect(parseMeta({})).toEqual({ paused: false, concurrency: 0, max: 0 });
    expect(parseRepeatRecord({ every_ms: '250', template: 't' })).toEqual({ everyMs: 250, template: 't' });
    expect(parseRepeatRecord({ every_ms: 'x', template: 't' })).toBeUndefined();
    expect(parseRepeatRecord({ every_ms: '10' })).toBeUndefined();
  });

  it('accepts flat-array and map replies alike', () => {
    expect(hashReply(['a', '1', 'b', '2'])).toEqual({ a: '1', b: '2' });
    expect(hashReply(new Map([['a', '1']]))).toEqual({ a: '1' });
    expect(hashReply(null)).toEqual({});
  });
});
