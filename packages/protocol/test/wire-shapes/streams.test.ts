import { describe, expect, it } from 'vitest';
import * as t from '../../src/transitions/index.js';
import { q, shapes } from './shape.js';

const shape = shapes('streams');

describe('streams', () => {
  it('streams', () => {
    expect(shape(t.streamDrop({ queue: 'orders', stream: 'audit' }))).toEqual({
      script: 'stream_drop',
      keys: ['', ':archived', ':msgids', ':msgids:until', ':order', ':paused'].map((part) => q(`stream:audit${part}`)),
      args: [],
    });
    const dl = [q('stream:audit'), q('stream:audit:dead')];
    expect(
      shape(t.streamClaim({ queue: 'orders', stream: 'audit', group: 'g', consumer: 'c', mode: 'idle', cursor: '0-0', count: 100, minIdleMs: 30_000, maxDeliveries: 5 })),
    ).toEqual({ script: 'stream_claim', keys: dl, args: ['g', 'c', 'idle', '0-0', 100, 30_000, 5] });
    expect(() => t.streamClaim({ queue: 'orders', stream: 'audit', group: 'g', consumer: 'c', mode: 'self', cursor: '0-0', count: 0, minIdleMs: 0, maxDeliveries: 0 })).toThrow(/count/);
    expect(shape(t.streamRedrive({ queue: 'orders', stream: 'audit', records: ['5-0', '6-0'] }))).toEqual({ script: 'stream_redrive', keys: dl, args: ['5-0', '6-0'] });
    expect(() => t.streamRedrive({ queue: 'orders', stream: 'audit', records: [] })).toThrow(/records/);
    const settle = { queue: 'orders', stream: 'audit', group: 'g', consumer: 'c', minIdleMs: 30_000, maxDeliveries: 5 };
    const entries = [
      { kind: 'ack', xid: '1-1', attempts: 1 },
      { kind: 'retry', xid: '1-2', attempts: 2, delayMs: 5_000, reason: 'boom', key: 'a' },
      { kind: 'dead', xid: '1-3', attempts: 1, reason: 'bad' },
    ] as const;
    expect(shape(t.streamSettle({ ...settle, entries }))).toEqual({
      script: 'stream_settle',
      keys: [...dl, q('stream:audit:order')],
      args: ['g', 'c', 30_000, 5, 'ack', '1-1', '', '1', '', '', 'retry', '1-2', 'a', '2', '5000', 'boom', 'dead', '1-3', '', '1', '', 'bad'],
    });
    expect(() => t.streamSettle({ ...settle, entries: [] })).toThrow(/entries/);
    expect(() => t.streamSettle({ ...settle, entries: [{ kind: 'retry', xid: '1-1', attempts: 1, delayMs: -1 }] })).toThrow(/delayMs/);
    expect(() => t.streamSettle({ ...settle, entries: [{ kind: 'nack' as 'ack', xid: '1-1', attempts: 1 }] })).toThrow(/kind/);
  });
  it('stream dedup, progress and order [TS]', () => {
    expect(shape(t.streamAppend({ queue: 'orders', stream: 'audit', windowMs: 120_000, records: [{ msgId: 'm1', xid: '1-1', fields: ['id', 'EVT', 'a', '1'] }] }))).toEqual({
      script: 'stream_append',
      keys: [q('stream:audit'), q('stream:audit:msgids'), q('stream:audit:msgids:until')],
      args: [120_000, 'm1', '1-1', '4', 'id', 'EVT', 'a', '1'],
    });
    expect(() => t.streamAppend({ queue: 'orders', stream: 'audit', windowMs: 0, records: [{ msgId: 'm', xid: '1-1', fields: ['id', 'E'] }] })).toThrow(/windowMs/);
    expect(() => t.streamAppend({ queue: 'orders', stream: 'audit', windowMs: 1, records: [{ msgId: 'm', xid: '1-1', fields: ['a', '1'] }] })).toThrow(/fields/);
    const batch = { queue: 'orders', stream: 'audit', records: ['1-1', 'EVT1', 2, 'a', '1', '1-2', 'EVT2', 0], count: 2 };
    expect(shape(t.streamAppendBatch({ ...batch, extra: [] }))).toEqual({ script: 'stream_append_batch', keys: [q('stream:audit')], args: [0, ...batch.records] });
    expect(shape(t.streamAppendBatch({ ...batch, extra: ['_tp', 'x'] }))).toEqual({ script: 'stream_append_batch', keys: [q('stream:audit')], args: [2, ...batch.records, '_tp', 'x'] });
    expect(() => t.streamAppendBatch({ ...batch, count: 0, extra: [] })).toThrow(/records/);
    expect(() => t.streamAppendBatch({ ...batch, extra: ['_tp'] })).toThrow(/extra/);
    expect(shape(t.streamTouch({ queue: 'orders', stream: 'audit', group: 'g', consumer: 'c', xids: ['1-1'] }))).toEqual({ script: 'stream_touch', keys: [q('stream:audit')], args: ['g', 'c', '1-1'] });
    const order = [q('stream:audit'), q('stream:audit:order')];
    expect(shape(t.streamOrderAdmit({ queue: 'orders', stream: 'audit', group: 'g', consumer: 'c', orderBy: 'acct', last: '1-2', entries: [{ xid: '1-2', key: 'a' }] }))).toEqual({
      script: 'stream_order_admit',
      keys: order,
      args: ['g', 'c', 'acct', '1-2', '1-2', 'a'],
    });
    expect(shape(t.streamGroupForget({ queue: 'orders', stream: 'audit', group: 'g' }))).toEqual({ script: 'stream_group_forget', keys: [q('stream:audit:order'), q('stream:audit:paused')], args: ['g', ''] });
    expect(shape(t.streamGroupForget({ queue: 'orders', stream: 'audit', group: 'g', position: '5-0' })).args).toEqual(['g', '5-0']);
  });
});
