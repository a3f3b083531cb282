/**
 * The mixed workload of the fault run: queue producers and workers (in this process and in child
 * processes the schedule may SIGKILL), bus appends consumed by two groups, and keyed cache writes and
 * reads on two connections. Everything it sees goes into one {@link RollingChecker}, which judges it
 * as the run goes, so an hour's run holds minutes of history, not an hour of it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Bus, type GroupConsumer, type Stream } from '@echo/bus';
import { Cache, type Namespace } from '@echo/cache';
import { NotEnoughReplicasError } from '@echo/protocol';
import { IdMinter, type Connection } from '@echo/protocol/extend';
import { Queue, type Worker } from '@echo/queue';
import { RollingChecker, sleep, type InjectedClock, type Operation, type ProcessPool } from '@echo/testkit';
import { startRecordedWorker, type FaultJob, type WorkerNotes } from './recorded-worker.js';

const CHILD = fileURLToPath(new URL('./worker-child.ts', import.meta.url));
export const GROUPS = ['g-near', 'g-far'] as const;
const CACHE_KEYS = 16;

/** Where the workload's parts connect. */
export interface WorkloadWiring {
  readonly queueName: string;
  /** Producers, the bus appender, the cache writer, worker `near`, group `g-near`. */
  readonly direct: Connection;
  /** Worker `far`, group `g-far`, the cache reader: the connection the link faults hit. */
  readonly far: Connection;
  /** Environment for a worker child (`REDIS_URL` or `REDIS_CLUSTER`). */
  readonly childEnv: Readonly<Record<string, string>>;
  readonly clock: InjectedClock;
  /** How long after a cache write's acknowledgement every reader must see it. */
  readonly coherenceMs: number;
  /** The producer's `durability` (admissions followed by `WAIT 1` under `'replicated'`). */
  readonly durability: 'primary' | 'replicated';
}

/** What the run reports besides the history. */
export interface WorkloadCounts {
  enqueued: number;
  enqueueErrors: Map<string, number>;
  appended: number;
  appendErrors: Map<string, number>;
  cacheWrites: number;
  cacheReads: number;
  cacheErrors: Map<string, number>;
  childrenSpawned: number;
  /**
   * When the workload's own writes (enqueue, append, cache write) were refused with
   * `NotEnoughReplicasError` (`min-replicas-to-write` unmet: nothing ran), for the refusal windows.
   */
  readonly refusedAt: number[];
}

/** The first message of each error kind the workload's own calls met. */
export const errorSamples = new Map<string, string>();

function bump(map: Map<string, number>, error: unknown, refusedAt?: number[]): void {
  const kind = error instanceof Error ? error.constructor.name : typeof error;
  if (error instanceof NotEnoughReplicasError) refusedAt?.push(Date.now());
  map.set(kind, (map.get(kind) ?? 0) + 1);
  if (!errorSamples.has(kind)) errorSamples.set(kind, error instanceof Error ? error.message : String(error));
}

interface Child {
  readonly process: ChildProcess;
  readonly name: string;
}

/** SIGTERM, then SIGKILL if the process has not exited within 5 s; resolves once it has. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(killer);
}

export class MixedWorkload implements ProcessPool {
  readonly checker: RollingChecker;
  readonly counts: WorkloadCounts = { enqueued: 0, enqueueErrors: new Map(), appended: 0, appendErrors: new Map(), cacheWrites: 0, cacheReads: 0, cacheErrors: new Map(), childrenSpawned: 0, refusedAt: [] };
  readonly notes: WorkerNotes = { errors: new Map(), samples: new Map(), outages: 0 };
  readonly childNotes = new Map<string, { errors: [string, number][]; samples: [string, string][]; outages: number }>();
  /** When each worker process exited (SIGKILLed by the schedule), by its worker name. */
  readonly exits = new Map<string, number>();
  readonly #wiring: WorkloadWiring;
  readonly #children = new Map<number, Child>();
  readonly #workers: Worker[] = [];
  readonly #consumers: GroupConsumer[] = [];
  readonly #caches: Cache[] = [];
  #producer!: Queue<FaultJob>;
  #stream!: Stream;
  #writer!: Namespace<number>;
  #reader!: Namespace<number>;
  #running = false;
  #loops: Promise<void>[] = [];
  #n = 0;

  constructor(wiring: WorkloadWiring) {
    this.#wiring = wiring;
    this.checker = new RollingChecker({ coherenceMs: wiring.coherenceMs, groups: GROUPS });
  }

  /** Acknowledged jobs no accepted terminal settlement has ended yet, by enqueue time. */
  readonly #open = new Map<string, number>();

  readonly record = (op: Operation): void => {
    this.checker.record(op);
    if (op.type === 'enqueue') this.#open.set(op.job, op.at);
    else if ((op.type === 'settle' && op.accepted && op.outcome !== 'retry') || op.type === 'removed' || op.type === 'final') this.#open.delete(op.job);
  };

  /**
   * Reads back the state of jobs acknowledged more than `olderThanMs` ago that no settlement has
   * ended; a job the server ended is recorded as `final` (completed rows are kept a few minutes,
   * so this runs during the run, not only at its end). Answers how many were read.
   */
  async audit(olderThanMs: number): Promise<number> {
    const before = Date.now() - olderThanMs;
    const due = [...this.#open].filter(([, at]) => at < before).map(([job]) => job);
    for (const job of due) {
      const state = await this.#producer.getState(job);
      if (state === 'completed' || state === 'dead') this.record({ type: 'final', job, state, at: Date.now() });
    }
    return due.length;
  }

  /** Jobs still open (see {@link audit}). */
  get openJobs(): readonly string[] {
    return [...this.#open.keys()];
  }

  get producer(): Queue<FaultJob> {
    return this.#producer;
  }

  get stream(): Stream {
    return this.#stream;
  }

  async start(children: number): Promise<void> {
    const w = this.#wiring;
    this.#producer = await Queue.open<FaultJob>(w.queueName, { connection: w.direct, durability: w.durability, keep: { completed: { count: Infinity, ageMs: 180_000 } } });
    const far = await Queue.open<FaultJob>(w.queueName, { connection: w.far });
    this.#workers.push(await startRecordedWorker(this.#producer, 'near', this.record, this.notes));
    this.#workers.push(await startRecordedWorker(far, 'far', this.record, this.notes));
    for (let i = 0; i < children; i++) await this.#spawn();

    const minter = new IdMinter({ node: 7, now: w.clock.now });
    const bus = await Bus.open(`${w.queueName}-bus`, { connection: w.direct, minter });
    const farBus = await Bus.open(`${w.queueName}-bus`, { connection: w.far });
    this.#stream = bus.stream('feed');
    for (const [group, on] of [
      [GROUPS[0], bus],
      [GROUPS[1], farBus],
    ] as const) {
      const consumer = await on.stream('feed').consume(
        group,
        (entry) => {
          this.record({ type: 'bus-ack', entry: entry.id, group, at: Date.now() });
        },
        { start: 'head', consumer: `${group}-1`, concurrency: 4, minIdleMs: 2_000, beatMs: 250, maxDeliveries: 10 },
      );
      this.#consumers.push(consumer);
    }

    const writerCache = await Cache.open({ connection: w.direct });
    const readerCache = await Cache.open({ connection: w.far });
    this.#caches.push(writerCache, readerCache);
    const options = { name: `${w.queueName}-c`, ttlMs: 600_000, logMaxLen: 10_000 };
    this.#writer = await writerCache.namespace<number>(options);
    this.#reader = await readerCache.namespace<number>(options);

    this.#running = true;
    this.#loops = [this.#produce(), this.#append(), this.#writeCache(), this.#readCache(), this.#auditLoop()];
  }

  /** Stops producing (workers and consumers keep draining). */
  async stopProducing(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#loops);
  }

  /**
   * Stops everything the workload runs: its loops (when the run ends early they would otherwise go
   * on against closed connections), its worker processes (waited for, so none outlives the run),
   * its in-process workers, consumers and caches.
   */
  async close(): Promise<void> {
    this.#running = false;
    const children = [...this.#children.values()].map((child) => child.process);
    this.#children.clear();
    await Promise.all(children.map((child) => stopChild(child)));
    await Promise.all(this.#workers.map((w) => w.close()));
    await Promise.all(this.#consumers.map((c) => c.close()));
    for (const cache of this.#caches) await cache.close();
  }

  // ProcessPool: the schedule kills worker children and asks for replacements.
  pids(): readonly number[] {
    return [...this.#children.keys()];
  }

  async respawn(pid: number): Promise<void> {
    this.#children.delete(pid);
    await this.#spawn();
  }

  async #spawn(): Promise<void> {
    const name = `child-${++this.counts.childrenSpawned}`;
    const child = spawn(process.execPath, ['--conditions=@echo/source', '--import', 'tsx', CHILD, this.#wiring.queueName, name], {
      env: { ...process.env, ...this.#wiring.childEnv },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const ready = new Promise<void>((resolve, reject) => {
      child.on('message', (message: { op?: Operation; ready?: boolean; notes?: { errors: [string, number][]; samples: [string, string][]; outages: number } }) => {
        if (message.op) this.record(message.op);
        if (message.notes) this.childNotes.set(name, message.notes);
        if (message.ready === true) resolve();
      });
      child.once('exit', () => {
        this.exits.set(name, Date.now());
        reject(new Error(`${name} exited before it was ready`));
      });
    });
    await ready;
    this.#children.set(child.pid as number, { process: child, name });
  }

  async #produce(): Promise<void> {
    while (this.#running) {
      const items = Array.from({ length: 10 }, () => {
        const n = this.#n++;
        return { payload: { n, flaky: n % 29 === 0 } };
      });
      try {
        const verdicts = await this.#producer.enqueueMany(items);
        const at = Date.now();
        for (const v of verdicts) {
          if (v.status === 'failed') bump(this.counts.enqueueErrors, v.error, this.counts.refusedAt);
          else {
            this.counts.enqueued++;
            this.record({ type: 'enqueue', job: v.id, at });
          }
        }
      } catch (error) {
        bump(this.counts.enqueueErrors, error, this.counts.refusedAt);
        await sleep(100);
      }
      await sleep(40);
    }
  }

  async #auditLoop(): Promise<void> {
    while (this.#running) {
      await sleep(5_000);
      await this.audit(30_000).catch(() => undefined);
      this.checker.sweep();
    }
  }

  async #append(): Promise<void> {
    while (this.#running) {
      try {
        const id = await this.#stream.append({ n: String(this.counts.appended) });
        this.counts.appended++;
        this.record({ type: 'bus-append', entry: id, at: Date.now() });
      } catch (error) {
        bump(this.counts.appendErrors, error, this.counts.refusedAt);
        await sleep(100);
      }
      await sleep(15);
    }
  }

  async #writeCache(): Promise<void> {
    const versions = new Array<number>(CACHE_KEYS).fill(0);
    let i = 0;
    while (this.#running) {
      const k = i++ % CACHE_KEYS;
      const key = `k${k}`;
      const value = (versions[k] as number) + 1;
      const at = Date.now();
      try {
        await this.#writer.set(key, value);
        versions[k] = value;
        this.counts.cacheWrites++;
        this.record({ type: 'cache-write', key, value, at, ackAt: Date.now() });
      } catch (error) {
        // A write that failed may still have landed: the next one for the key goes above it.
        versions[k] = value;
        bump(this.counts.cacheErrors, error, this.counts.refusedAt);
        await sleep(100);
      }
      await sleep(20);
    }
  }

  async #readCache(): Promise<void> {
    let i = 0;
    while (this.#running) {
      const key = `k${i++ % CACHE_KEYS}`;
      const at = Date.now();
      try {
        const value = await this.#reader.get(key);
        this.counts.cacheReads++;
        this.record({ type: 'cache-read', key, value: value ?? null, at, reader: 'far' });
      } catch (error) {
        bump(this.counts.cacheErrors, error, this.counts.refusedAt);
        await sleep(100);
      }
      await sleep(10);
    }
  }

  /** Consumers' view of the stream: pending and undelivered per group. */
  async lag(): Promise<{ group: string; pending: number; undelivered: number | null }[]> {
    const all = await this.#stream.lag();
    return all.filter((l) => (GROUPS as readonly string[]).includes(l.group)).map((l) => ({ group: l.group, pending: l.pending, undelivered: l.undelivered }));
  }

  /**
   * Appended entries some group has not acknowledged yet, as the history tells. An append whose
   * reply was lost may be acked without being recorded as appended: not counted.
   */
  unackedEntries(): number {
    return this.checker.unackedEntries;
  }

  /** Dead letters of the stream, recorded per group. */
  async recordDeadLetters(): Promise<number> {
    const dead = await this.#stream.deadLetters();
    for (const d of dead) this.record({ type: 'bus-dead', entry: d.id, group: d.group, at: Date.now() });
    return dead.length;
  }
}
