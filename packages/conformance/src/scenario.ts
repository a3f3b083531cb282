import type { Bus } from '@echo/bus';
import type { Arg, BrandedId, Connection, ConnectionStats, ScriptName, Transition } from '@echo/protocol/extend';
import type { BatchHandler, BatchWorker, BatchWorkerOptions, Handler, Queue, QueueEvents, Worker, WorkerOptions } from '@echo/queue';
import type { ConformanceTarget } from './target.js';
import type { ServerNode } from './server-nodes.js';

/** The sections of conformance.md, plus the TS-only extensions. */
export type Family =
  | 'state'
  | 'read'
  | 'operator'
  | 'watch'
  | 'parity'
  | 'lanes'
  | 'flows'
  | 'pool'
  | 'native'
  | 'weighted'
  | 'batches'
  | 'streams'
  | 'ts';

/** What a scenario drives the target with. Everything it opens is closed, and every queue it names purged, after it. */
export interface ScenarioEnv {
  readonly target: ConformanceTarget;
  /** The scenario's name. */
  readonly scenario: string;
  /** `<base>.<scenario>[.suffix]`, recorded so the harness purges `emq:{<name>}:*` afterwards. */
  name(suffix?: string): string;
  /** Opens the queue `name(suffix)`. */
  queue(suffix?: string): Promise<Queue>;
  /** Opens the bus of queue `name(suffix)`. */
  bus(suffix?: string): Promise<Bus>;
  /** A plain command through the target's connection (fenced and error-mapped like every transition). */
  command(name: string, ...args: Arg[]): Promise<unknown>;
  /** A catalogued script through the target's connection. */
  run(script: ScriptName, keys: readonly string[], args?: readonly Arg[]): Promise<unknown>;
  /** A typed transition through the target's connection (a host step no pillar exposes, say). */
  execute<R>(transition: Transition<R>): Promise<R>;
  /** The connection's counters now. */
  stats(): Readonly<ConnectionStats>;
  flushScripts(): Promise<void>;
  scanKeys(pattern: string): Promise<string[]>;
  /** A fresh branded id of the namespace (`JOB`, `PRT`, `ORD`, `EVT`). */
  mintId<NS extends string>(namespace: NS): BrandedId<NS>;
  startWorker(queue: Queue, handler: Handler<unknown>, options?: WorkerOptions): Promise<Worker>;
  startBatchWorker(queue: Queue, handler: BatchHandler<unknown>, options?: BatchWorkerOptions): Promise<BatchWorker>;
  /** Opens a queue's event listener. */
  events(queue: Queue): Promise<QueueEvents>;
  /** Opens `size` handles on queue `name(suffix)`, each on its own connection. */
  pool(size: number, suffix?: string): Promise<readonly Queue[]>;
  /** A new connection of its own, for subscriptions. */
  subscriber(): Promise<Connection>;
  /** Every master, each answering commands itself. */
  nodes(): readonly ServerNode[];
  /** Runs `cleanup` after the scenario, pass or fail, before the purge (last registered first). */
  defer(cleanup: () => unknown): void;
}

/** One conformance scenario. */
export interface Scenario {
  /** The number in conformance.md; the TS-only extensions carry none. */
  readonly no?: number;
  /** The exact name of conformance.md. */
  readonly name: string;
  /** The contract, restated in one line. */
  readonly contract: string;
  readonly family: Family;
  /** Set when the scenario cannot run here at all: it is reported skipped with this reason. */
  readonly skip?: string;
  /**
   * Asks the server whether the scenario applies (for the optional, newer-server ones); a string
   * is the reason it is reported skipped instead of run.
   */
  probe?(env: ScenarioEnv): Promise<string | undefined>;
  /** Throws (an assertion or any error) when the contract does not hold. */
  run(env: ScenarioEnv): Promise<void>;
}

/** The `run` of a scenario marked `skip`: never called by the runner. */
export function notBuilt(): Promise<void> {
  return Promise.reject(new Error('this scenario is marked skip and is never run'));
}
