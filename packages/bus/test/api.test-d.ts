import type { EvtId, JobId } from '@echo/protocol/bus';
import { describe, expectTypeOf, it } from 'vitest';
import type { AppendReceipt, Bus, ConsumeOptions, GroupEntry, Stream, StreamEntry, TrimWindow } from '../src/index.js';

declare const stream: Stream;

describe('the public types', () => {
  it('answers EVT-branded receipts and entries', () => {
    expectTypeOf(stream.append({ a: '1' })).toEqualTypeOf<Promise<EvtId>>();
    expectTypeOf(stream.append({ a: '1' }, { msgId: 'm' })).toEqualTypeOf<Promise<AppendReceipt>>();
    expectTypeOf(stream.appendBatch([{ a: '1' }])).toEqualTypeOf<Promise<EvtId[]>>();
    expectTypeOf(stream.appendBatch([{ a: '1' }], { msgIds: ['m'] })).toEqualTypeOf<Promise<AppendReceipt[]>>();
    expectTypeOf<AppendReceipt>().toEqualTypeOf<{ readonly id: EvtId; readonly duplicate: boolean }>();
    expectTypeOf<StreamEntry[0]>().toEqualTypeOf<EvtId>();
    expectTypeOf<GroupEntry['id']>().toEqualTypeOf<EvtId>();
    expectTypeOf<EvtId>().not.toEqualTypeOf<JobId>();
  });

  it('makes the group start and the consumer name mandatory', () => {
    expectTypeOf<{ consumer: 'c' }>().not.toExtend<ConsumeOptions>();
    expectTypeOf<{ start: 'head' }>().not.toExtend<ConsumeOptions>();
    expectTypeOf<{ start: 'latest'; consumer: 'c' }>().not.toExtend<ConsumeOptions>();
    expectTypeOf<{ start: 'new'; consumer: 'c' }>().toExtend<ConsumeOptions>();
    expectTypeOf<{ start: { at: Date }; consumer: 'c' }>().toExtend<ConsumeOptions>();
    expectTypeOf<{ start: { after: EvtId }; consumer: 'c' }>().toExtend<ConsumeOptions>();
    expectTypeOf<{ start: { after: string }; consumer: 'c' }>().not.toExtend<ConsumeOptions>();
  });

  it('takes either a maxlen or a minid window', () => {
    expectTypeOf<{ maxlen: 5 }>().toExtend<TrimWindow>();
    expectTypeOf<{ minid: Date; approx: false }>().toExtend<TrimWindow>();
    expectTypeOf<{ approx: true }>().not.toExtend<TrimWindow>();
  });

  it('publishes known event names only', () => {
    expectTypeOf<Bus['publish']>().parameter(0).toEqualTypeOf<'progress' | 'completed' | 'failed' | 'delayed' | 'stalled' | 'scheduled' | 'removed' | 'waiting' | 'active' | 'deduplicated' | 'drained' | 'expired'>();
    // A job id, not any string: `"job-0"` no longer compiles.
    expectTypeOf<Bus['publish']>().parameter(1).toEqualTypeOf<JobId>();
    expectTypeOf<'job-0'>().not.toExtend<Parameters<Bus['publish']>[1]>();
  });
});
