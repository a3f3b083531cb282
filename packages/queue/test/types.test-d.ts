import type { JobId } from '@echo/protocol/queue';
import { describe, expectTypeOf, it } from 'vitest';
import { BatchWorker, Worker, type ClaimedJob, type Queue } from '../src/index.js';

interface Order {
  sku: string;
  qty: number;
}

declare const orders: Queue<Order>;

describe('a queue and its workers agree on the payload type', () => {
  it('hands the handler the queue payload type', () => {
    void Worker.start(orders, (job) => {
      expectTypeOf(job.payload).toEqualTypeOf<Order>();
      expectTypeOf(job.id).toEqualTypeOf<JobId>();
      expectTypeOf(job.attempts).toBeNumber();
    });
    void BatchWorker.start(orders, (jobs) => {
      expectTypeOf(jobs).toEqualTypeOf<readonly ClaimedJob<Order>[]>();
      return {};
    });
  });

  it('refuses a handler written for another payload type', () => {
    // @ts-expect-error the handler expects a string payload, the queue carries orders
    void Worker.start(orders, (job: ClaimedJob<string>) => job.payload.toUpperCase());
  });

  it('refuses enqueueing a payload of the wrong shape', () => {
    // @ts-expect-error qty must be a number
    void orders.enqueue({ sku: 'A1', qty: '2' });
    // @ts-expect-error enqueueMany items carry the queue's payload type
    void orders.enqueueMany([{ payload: 'nope' }]);
    void orders.enqueue({ sku: 'A1', qty: 2 });
  });

  it('returns typed records and states', () => {
    expectTypeOf(orders.getJob('JOB00000000000')).resolves.toEqualTypeOf<Awaited<ReturnType<Queue<Order>['getJob']>>>();
    expectTypeOf(orders.getState('JOB00000000000')).resolves.toEqualTypeOf<'pending' | 'active' | 'scheduled' | 'dead' | 'awaiting_children' | 'completed' | 'expired' | 'unknown' | 'absent'>();
  });
});
