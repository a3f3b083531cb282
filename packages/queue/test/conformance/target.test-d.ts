/** The real classes fit the testkit's structural conformance types as they are, without adapters. */
// The lint's deep-import pattern predates declared subpath exports; this one is in testkit's `exports` map.
import type {
  BatchPartitionLike,
  CancelTokenLike,
  ClaimedJobLike,
  HostKit,
  JobRecordLike,
  QueueEventsLike,
  QueueLike,
  WorkerLike,
} from '@echo/testkit/conformance';
import { describe, expectTypeOf, it } from 'vitest';
import type { BatchPartition, BatchWorker, CancelToken, ClaimedJob, decideBatch, JobRecord, Queue, QueueEvents, Worker } from '../../src/index.js';

describe('structural conformance types', () => {
  it('a Queue of any payload is a QueueLike', () => {
    expectTypeOf<Queue>().toExtend<QueueLike>();
    expectTypeOf<Queue<{ readonly n: number }>>().toExtend<QueueLike>();
    expectTypeOf<ClaimedJob<unknown>>().toExtend<ClaimedJobLike>();
    expectTypeOf<JobRecord<unknown>>().toExtend<JobRecordLike>();
    expectTypeOf<QueueEvents>().toExtend<QueueEventsLike>();
  });

  it('workers, the cancel token and the pure host functions fit too', () => {
    expectTypeOf<Worker>().toExtend<WorkerLike>();
    expectTypeOf<BatchWorker>().toExtend<WorkerLike>();
    expectTypeOf<CancelToken>().toExtend<CancelTokenLike>();
    expectTypeOf<typeof decideBatch>().toExtend<HostKit['decideBatch']>();
    expectTypeOf<BatchPartition>().toExtend<BatchPartitionLike>();
  });
});
