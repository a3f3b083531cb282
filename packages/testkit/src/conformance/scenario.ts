import type {
  BatchHandlerLike,
  BatchWorkerOptionsLike,
  ConformanceTarget,
  HandlerLike,
  HostKit,
  NodeLike,
  QueueEventsLike,
  QueueLike,
  SubscriberLike,
  WireArg,
  WireStats,
  WorkerLike,
  WorkerOptionsLike,
} from './types.js';
import type { BusLike, IdKit } from './types-bus.js';

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

/** An optional member of {@link ConformanceTarget} (or of its wire) that a scenario cannot run without. */
export type Capability =
  | 'openQueue'
  | 'startWorker'
  | 'startBatchWorker'
  | 'openPool'
  | 'openBus'
  | 'openSubscriber'
  | 'nodes'
  | 'host'
  | 'ids'
  | 'wire.run'
  | 'wire.stats';

/** Whether `target` offers `capability`. */
export function hasCapability(target: ConformanceTarget, capability: Capability): boolean {
  switch (capability) {
    case 'wire.run':
      return target.wire.run !== undefined;
    case 'wire.stats':
      return target.wire.stats !== undefined;
    default:
      return target[capability] !== undefined;
  }
}

/** What a scenario drives the target with. Everything it opens is closed, and every queue it names purged, after it. */
export interface ScenarioEnv {
  readonly target: ConformanceTarget;
  /** The scenario's name. */
  readonly scenario: string;
  /** `<base>.<scenario>[.suffix]`, recorded so the harness purges `emq:{<name>}:*` afterwards. */
  name(suffix?: string): string;
  /** Opens the queue `name(suffix)`. */
  queue(suffix?: string): Promise<QueueLike>;
  /** Opens the bus of queue `name(suffix)`. */
  bus(suffix?: string): Promise<BusLike>;
  /** A plain command through the target's wire. */
  command(name: string, ...args: WireArg[]): Promise<unknown>;
  /** A catalogued script through the target's wire. */
  run(script: string, keys: readonly string[], args?: readonly WireArg[]): Promise<unknown>;
  /** The wire's counters now. */
  stats(): WireStats;
  flushScripts(): Promise<void>;
  scanKeys(pattern: string): Promise<string[]>;
  mintId(namespace: string): string;
  startWorker(queue: QueueLike, handler: HandlerLike, options?: WorkerOptionsLike): Promise<WorkerLike>;
  startBatchWorker(queue: QueueLike, handler: BatchHandlerLike, options?: BatchWorkerOptionsLike): Promise<WorkerLike>;
  /** Opens a queue's event listener. */
  events(queue: QueueLike): Promise<QueueEventsLike>;
  /** Opens `size` handles on queue `name(suffix)`, each on its own connection. */
  pool(size: number, suffix?: string): Promise<readonly QueueLike[]>;
  subscriber(): Promise<SubscriberLike>;
  nodes(): Promise<readonly NodeLike[]>;
  readonly host: HostKit;
  readonly ids: IdKit;
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
  /** The target capabilities it cannot run without; missing ones report it skipped, naming them. */
  readonly needs: readonly Capability[];
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
