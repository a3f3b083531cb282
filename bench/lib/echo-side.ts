import { BatchWorker, Queue, Worker, type BatchVerdict, type ClaimedJob } from '@echo/queue';
import type { Admin } from './admin.js';
import { expectedChecksum, measureMemory, pacedLatency, payloads, phase, sequentialLatency, type BenchConfig, type Fill, type Payload, type Phase } from './phase.js';
import { waitUntil } from './stats.js';
import type { BenchTarget } from './target.js';

/** What Echo's full round measures beyond the fill. */
export interface EchoProcessing {
  readonly process: Phase;
  readonly batch: Phase;
  readonly batchLoop: Phase;
}

/** Echo's side of the bench on one server. */
export class EchoSide {
  readonly #admin: Admin;
  readonly #target: BenchTarget;
  readonly #cfg: BenchConfig;

  constructor(admin: Admin, target: BenchTarget, cfg: BenchConfig) {
    this.#admin = admin;
    this.#target = target;
    this.#cfg = cfg;
  }

  async #withQueue<R>(run: (queue: Queue<Payload>) => Promise<R>): Promise<R> {
    await this.#admin.flushAll();
    const queue = await Queue.open<Payload>(this.#cfg.queue, { connect: this.#target.url });
    try {
      return await run(queue);
    } finally {
      await queue.close();
    }
  }

  /** From an empty server: one `enqueueMany` of `n` jobs, then the memory they hold. */
  async #fill(queue: Queue<Payload>, n: number, pad: number): Promise<Fill> {
    const admin = this.#admin;
    const items = payloads(n, pad);
    const mem0 = await admin.usedMemory();
    const c0 = await admin.snapshot();
    const t0 = performance.now();
    const verdicts = await queue.enqueueMany(items.map((payload) => ({ payload })));
    const enqueueMs = performance.now() - t0;
    const c1 = await admin.snapshot();
    const ids = verdicts.map((v) => {
      if (v.status !== 'enqueued') throw new Error(`Echo: enqueue answered ${v.status} for ${v.id}`);
      return v.id;
    });
    const root = queue.keys.jobRoot;
    const memory = await measureMemory(admin, ids.map((id) => root + id), `${queue.keys.base}*`, (key) => key.startsWith(root) && !key.slice(root.length).includes(':'), mem0, this.#cfg.sample);
    return { enqueue: phase(enqueueMs, n, c0, c1), memory };
  }

  /** Refills the queue between processing phases, untimed. */
  async #refill(queue: Queue<Payload>, n: number, pad: number): Promise<void> {
    await this.#admin.flushAll();
    const verdicts = await queue.enqueueMany(payloads(n, pad).map((payload) => ({ payload })));
    if (verdicts.some((v) => v.status !== 'enqueued')) throw new Error('Echo: refill refused a job');
  }

  /** Fills `n` jobs only (the scale row). */
  fillOnly(n: number, pad: number): Promise<Fill> {
    return this.#withQueue((queue) => this.#fill(queue, n, pad));
  }

  /** Fills `n` jobs and drains them with the Worker (one by one). */
  fillAndProcess(n: number, pad: number): Promise<Fill & { readonly process: Phase }> {
    return this.#withQueue(async (queue) => {
      const fill = await this.#fill(queue, n, pad);
      return { ...fill, process: await this.#process(queue, n) };
    });
  }

  /** The full round: fill, Worker, BatchWorker, the bare claimBatch loop. */
  fullRound(n: number, pad: number): Promise<Fill & EchoProcessing> {
    return this.#withQueue(async (queue) => {
      const fill = await this.#fill(queue, n, pad);
      const process = await this.#process(queue, n);
      await this.#refill(queue, n, pad);
      const batch = await this.#batch(queue, n);
      await this.#refill(queue, n, pad);
      const batchLoop = await this.#loop(queue, n);
      return { ...fill, process, batch, batchLoop };
    });
  }

  async #drained(queue: Queue<Payload>, what: string): Promise<void> {
    const left = await queue.counts('pending', 'active', 'scheduled', 'dead');
    if (Object.values(left).some((count) => count !== 0)) throw new Error(`Echo ${what}: jobs left: ${JSON.stringify(left)}`);
  }

  /** One by one: the production Worker with its defaults (events on, lock markers on). */
  async #process(queue: Queue<Payload>, n: number): Promise<Phase> {
    const admin = this.#admin;
    let checksum = 0;
    const errors: unknown[] = [];
    const c2 = await admin.snapshot();
    const t1 = performance.now();
    const worker = await Worker.start(
      queue,
      (job: ClaimedJob<Payload>) => {
        checksum += job.payload.i;
      },
      { concurrency: this.#cfg.concurrency, onError: (error) => errors.push(error) },
    );
    let processMs: number;
    try {
      await waitUntil(() => worker.stats().completed >= n || errors.length > 0, this.#cfg.timeoutMs, `Echo to complete ${n} jobs`);
      processMs = performance.now() - t1;
    } finally {
      await worker.close();
    }
    const c3 = await admin.snapshot();
    if (errors.length > 0) throw new Error(`Echo worker reported: ${String(errors[0])}`);
    if (checksum !== expectedChecksum(n)) throw new Error(`Echo: checksum ${checksum}, expected ${expectedChecksum(n)}`);
    await this.#drained(queue, 'one by one');
    return phase(processMs, n, c2, c3);
  }

  /** The production BatchWorker (events and lock markers on); the handler answers 'ok' for every member. */
  async #batch(queue: Queue<Payload>, n: number): Promise<Phase> {
    const admin = this.#admin;
    let checksum = 0;
    const errors: unknown[] = [];
    const c4 = await admin.snapshot();
    const t2 = performance.now();
    const worker = await BatchWorker.start(
      queue,
      (jobs: readonly ClaimedJob<Payload>[]) => {
        const verdicts = new Map<string, BatchVerdict>();
        for (const job of jobs) {
          checksum += job.payload.i;
          verdicts.set(job.id, 'ok');
        }
        return verdicts;
      },
      { size: this.#cfg.batch, concurrency: this.#cfg.batchInflight, onError: (error) => errors.push(error) },
    );
    let batchMs: number;
    try {
      await waitUntil(() => worker.stats().completed >= n || errors.length > 0, this.#cfg.timeoutMs, `Echo BatchWorker to complete ${n} jobs`);
      batchMs = performance.now() - t2;
    } finally {
      await worker.close();
    }
    const c5 = await admin.snapshot();
    if (errors.length > 0) throw new Error(`Echo BatchWorker reported: ${String(errors[0])}`);
    if (checksum !== expectedChecksum(n)) throw new Error(`Echo batch: checksum ${checksum}, expected ${expectedChecksum(n)}`);
    await this.#drained(queue, 'batch');
    return phase(batchMs, n, c4, c5);
  }

  /**
   * Reference: the floor under the batch path, a bare loop of `completeAndClaim` (the previous
   * batch's completions and the next claim in one script): no events, no lock markers, no pump,
   * no wake connection.
   */
  async #loop(queue: Queue<Payload>, n: number): Promise<Phase> {
    const admin = this.#admin;
    let checksum = 0;
    let done = 0;
    const c6 = await admin.snapshot();
    const t3 = performance.now();
    let held: ClaimedJob<Payload>[] = [];
    for (;;) {
      const round = await queue.leases().completeAndClaim(held, done + held.length < n ? this.#cfg.batch : 0, this.#cfg.leaseMs);
      done += round.completions.filter((c) => c === 'ok').length;
      held = round.claimed;
      if (held.length === 0) break;
      for (const job of held) checksum += job.payload.i;
    }
    const loopMs = performance.now() - t3;
    const c7 = await admin.snapshot();
    if (done !== n) throw new Error(`Echo batch loop: completed ${done} of ${n}`);
    if (checksum !== expectedChecksum(n)) throw new Error(`Echo batch loop: checksum ${checksum}, expected ${expectedChecksum(n)}`);
    await this.#drained(queue, 'batch loop');
    return phase(loopMs, n, c6, c7);
  }

  /** Enqueue → handler start at `rate` jobs/s into a Worker at concurrency 1 (see `pacedLatency`); ms per job. */
  pacedLatency(n: number, rate: number, pad: number): Promise<number[]> {
    return this.#withQueue(async (queue) => {
      const seen: number[] = [];
      const worker = await Worker.start(queue, (job: ClaimedJob<Payload>) => void seen.push(performance.now() - job.payload.i), { concurrency: 1 });
      try {
        const text = 'x'.repeat(pad);
        return await pacedLatency(
          n,
          rate,
          async (t0) => {
            const v = await queue.enqueue({ i: t0, pad: text });
            if (v.status !== 'enqueued') throw new Error(`Echo: enqueue answered ${v.status}`);
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
      const worker = await Worker.start(queue, () => notify?.(performance.now()), { concurrency: 1 });
      try {
        const text = 'x'.repeat(pad);
        return await sequentialLatency(
          n,
          async (t0) => {
            const v = await queue.enqueue({ i: t0, pad: text });
            if (v.status !== 'enqueued') throw new Error(`Echo: enqueue answered ${v.status}`);
          },
          () => new Promise((resolve) => (notify = resolve)),
          (count) => waitUntil(() => worker.stats().completed >= count, this.#cfg.timeoutMs, 'Echo to settle a job'),
        );
      } finally {
        await worker.close();
      }
    });
  }
}
