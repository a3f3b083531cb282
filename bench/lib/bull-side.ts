import { Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import type { Admin } from './admin.js';
import { expectedChecksum, measureMemory, pacedLatency, payloads, phase, sequentialLatency, type BenchConfig, type Fill, type Payload, type Phase } from './phase.js';
import { waitUntil } from './stats.js';
import type { BenchTarget } from './target.js';

function bullConnection(target: BenchTarget): Record<string, unknown> {
  return {
    host: target.host,
    port: target.port,
    db: target.db,
    ...(target.password === undefined ? {} : { password: target.password }),
    maxRetriesPerRequest: null,
    disableClientInfo: true,
  };
}

/** BullMQ's side of the bench on one server. */
export class BullSide {
  readonly #admin: Admin;
  readonly #target: BenchTarget;
  readonly #cfg: BenchConfig;

  constructor(admin: Admin, target: BenchTarget, cfg: BenchConfig) {
    this.#admin = admin;
    this.#target = target;
    this.#cfg = cfg;
  }

  async #withQueue<R>(run: (queue: BullQueue<Payload>) => Promise<R>): Promise<R> {
    await this.#admin.flushAll();
    const queue = new BullQueue<Payload>(this.#cfg.queue, { connection: bullConnection(this.#target) });
    try {
      await queue.waitUntilReady();
      return await run(queue);
    } finally {
      await queue.close();
    }
  }

  /** From an empty server: `addBulk` of `n` jobs in chunks, then the memory they hold. */
  async #fill(queue: BullQueue<Payload>, n: number, pad: number): Promise<Fill> {
    const admin = this.#admin;
    const items = payloads(n, pad);
    const mem0 = await admin.usedMemory();
    const c0 = await admin.snapshot();
    const t0 = performance.now();
    const ids: string[] = [];
    for (let start = 0; start < n; start += this.#cfg.chunk) {
      const jobs = await queue.addBulk(items.slice(start, start + this.#cfg.chunk).map((data) => ({ name: 'job', data })));
      for (const job of jobs) ids.push(job.id!);
    }
    const enqueueMs = performance.now() - t0;
    const c1 = await admin.snapshot();
    const prefix = `bull:${this.#cfg.queue}:`;
    const memory = await measureMemory(admin, ids.map((id) => prefix + id), `${prefix}*`, (key) => /^\d+$/.test(key.slice(prefix.length)), mem0, this.#cfg.sample);
    const waiting = await queue.getWaitingCount();
    if (waiting !== n) throw new Error(`BullMQ: ${waiting} waiting after enqueueing ${n}`);
    return { enqueue: phase(enqueueMs, n, c0, c1), memory };
  }

  /** Fills `n` jobs only (the scale row). */
  fillOnly(n: number, pad: number): Promise<Fill> {
    return this.#withQueue((queue) => this.#fill(queue, n, pad));
  }

  /** Fills `n` jobs, then drains them with a Worker at the configured concurrency. */
  fillAndProcess(n: number, pad: number): Promise<Fill & { readonly process: Phase }> {
    return this.#withQueue(async (queue) => {
      const fill = await this.#fill(queue, n, pad);
      return { ...fill, process: await this.#process(queue, n) };
    });
  }

  async #process(queue: BullQueue<Payload>, n: number): Promise<Phase> {
    const admin = this.#admin;
    const cfg = this.#cfg;
    let completed = 0;
    let checksum = 0;
    const errors: unknown[] = [];
    const c2 = await admin.snapshot();
    const t1 = performance.now();
    const worker = new BullWorker<Payload>(
      cfg.queue,
      (job) => {
        checksum += job.data.i;
        return Promise.resolve();
      },
      { connection: bullConnection(this.#target), concurrency: cfg.concurrency, ...(cfg.bullRemoveOnComplete ? { removeOnComplete: { count: 0 } } : {}) },
    );
    worker.on('completed', () => completed++);
    worker.on('failed', (_job, error) => errors.push(error));
    worker.on('error', (error) => errors.push(error));
    let processMs: number;
    try {
      await waitUntil(() => completed >= n || errors.length > 0, cfg.timeoutMs, `BullMQ to complete ${n} jobs`);
      processMs = performance.now() - t1;
    } finally {
      await worker.close();
    }
    const c3 = await admin.snapshot();
    if (errors.length > 0) throw new Error(`BullMQ worker failed: ${String(errors[0])}`);
    if (checksum !== expectedChecksum(n)) throw new Error(`BullMQ: checksum ${checksum}, expected ${expectedChecksum(n)}`);
    const left = await queue.getJobCounts('wait', 'active', 'delayed', 'failed');
    if (Object.values(left).some((count) => count !== 0)) throw new Error(`BullMQ: jobs left after processing: ${JSON.stringify(left)}`);
    return phase(processMs, n, c2, c3);
  }

  /** Enqueue → handler start at `rate` jobs/s into a Worker at concurrency 1 (see `pacedLatency`); ms per job. */
  pacedLatency(n: number, rate: number, pad: number): Promise<number[]> {
    return this.#withQueue(async (queue) => {
      const seen: number[] = [];
      const worker = new BullWorker<Payload>(
        this.#cfg.queue,
        (job) => {
          seen.push(performance.now() - job.data.i);
          return Promise.resolve();
        },
        { connection: bullConnection(this.#target), concurrency: 1, removeOnComplete: { count: 0 } },
      );
      try {
        await worker.waitUntilReady();
        const text = 'x'.repeat(pad);
        return await pacedLatency(
          n,
          rate,
          async (t0) => {
            await queue.add('job', { i: t0, pad: text });
          },
          seen,
          this.#cfg.timeoutMs,
        );
      } finally {
        await worker.close();
      }
    });
  }

  /** Enqueue → handler start, one job at a time, into an idle Worker at concurrency 1; ms per job. */
  latency(n: number, pad: number): Promise<number[]> {
    return this.#withQueue(async (queue) => {
      let notify: ((at: number) => void) | undefined;
      let completed = 0;
      const worker = new BullWorker<Payload>(
        this.#cfg.queue,
        () => {
          notify?.(performance.now());
          return Promise.resolve();
        },
        { connection: bullConnection(this.#target), concurrency: 1, removeOnComplete: { count: 0 } },
      );
      worker.on('completed', () => completed++);
      try {
        await worker.waitUntilReady();
        const text = 'x'.repeat(pad);
        return await sequentialLatency(
          n,
          async (t0) => {
            await queue.add('job', { i: t0, pad: text });
          },
          () => new Promise((resolve) => (notify = resolve)),
          (count) => waitUntil(() => completed >= count, this.#cfg.timeoutMs, 'BullMQ to settle a job'),
        );
      } finally {
        await worker.close();
      }
    });
  }
}
