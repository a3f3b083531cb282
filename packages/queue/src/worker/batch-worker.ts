import { InvalidArgumentError, type JobId } from '@echo/protocol/queue';
import { BatchSlots, type BatchHandler, type BatchShape } from './batch-slots.js';
import type { BatchPartition } from './partition.js';
import { PauseGate } from './pause-gate.js';
import { WorkerRuntime, type LeaseSource } from './runtime.js';
import { decideBatch } from './shaping.js';
import { WorkerShell, shellParts } from './shell.js';
import { checkBatchWorkerOptions, checkWorkerArguments } from './strict-options.js';
import { resolveWorkerOptions, type WorkerOptions } from './worker-options.js';

export type { BatchHandler, BatchShape, BatchVerdicts } from './batch-slots.js';

/** Batches a BatchWorker keeps in flight unless told otherwise. */
const DEFAULT_BATCHES_IN_FLIGHT = 2;

/** How a batch worker runs, on top of the single-job options. */
export interface BatchWorkerOptions extends Omit<WorkerOptions, 'concurrency' | 'respectConcurrencyGate'> {
  /** Most jobs per batch. Default 50. */
  readonly size?: number;
  /**
   * Batches in flight at once. Default 2: while one batch's settlement (with the next claim) is on
   * the wire, the other batch's handler runs, so a handler that waits on I/O does not leave the
   * worker idle for a round trip per batch. Use 1 for batches that must run one at a time.
   */
  readonly concurrency?: number;
  /**
   * Shaping (queue.md §7): wait until `minSize` jobs are pending, or `timeoutMs` has passed with at
   * least one, before claiming. Without it a batch is claimed as soon as any job is pending.
   */
  readonly shape?: BatchShape;
  /** Called with each settled batch's partition (completed, retried, dead, delayed). */
  readonly onBatch?: (partition: BatchPartition<JobId>) => void;
  /** Start claiming at once. Default true; with false, call {@link BatchWorker.run} when ready. */
  readonly autorun?: boolean;
}

/**
 * Claims up to `size` jobs in one script under one deadline and hands them to a handler together.
 * Each member is settled on its own with its own token, so one poisoned member retries alone while
 * the others complete; each publishes its own event (`completed` carries no result here).
 *
 * A member's `timeoutMs` is its own: past it, that member's context aborts with `JobTimeoutError`
 * and the member fails at once, whatever verdict the handler gives it later; the rest of the batch
 * waits for the handler. Once every member has run out of time the handler is not awaited longer.
 */
export class BatchWorker<T = unknown> extends WorkerShell<T> {
  private constructor(rt: WorkerRuntime<T>, handler: BatchHandler<T>, options: BatchWorkerOptions) {
    const gate = new PauseGate();
    const slots = new BatchSlots(rt, gate, handler, { size: options.size ?? 50, shape: options.shape, onBatch: options.onBatch });
    super(shellParts(rt, gate, () => slots.slot()));
  }

  /**
   * Starts a batch worker on `queue` (a queue opened by `Queue.open`; the worker reads only its
   * `leases()` and `maintenance()` handles).
   * @throws InvalidArgumentError for a bad option, UnknownOptionError for an option it does not
   * know, before anything starts.
   */
  static async start<T>(queue: LeaseSource<T>, handler: BatchHandler<T>, options: BatchWorkerOptions = {}): Promise<BatchWorker<T>> {
    checkWorkerArguments('BatchWorker.start', queue, handler);
    checkBatchWorkerOptions(options);
    const size = options.size ?? 50;
    if (!Number.isSafeInteger(size) || size < 1) throw new InvalidArgumentError('size', 'must be a positive integer');
    if (options.shape) decideBatch(0, 0, options.shape.minSize, options.shape.timeoutMs);
    const resolved = resolveWorkerOptions({ ...options, concurrency: options.concurrency ?? DEFAULT_BATCHES_IN_FLIGHT });
    const wake = await queue.leases().openWake('echo-batch-wake');
    return WorkerShell.boot(new BatchWorker(new WorkerRuntime(queue, resolved, wake, 'batch'), handler, options), options.autorun);
  }
}
