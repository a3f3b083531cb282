/** The per-scenario environment: sub-queue names, capability access, cleanups and the purge. */
import type { Capability, ScenarioEnv } from './scenario.js';
import type { ConformanceTarget, HostKit, QueueLike, WireStats } from './types.js';
import type { IdKit } from './types-bus.js';

/** A scenario reached for a capability the target does not offer (and did not declare it). */
export class MissingCapabilityError extends Error {
  constructor(capability: Capability) {
    super(`the target has no ${capability}; declare it in the scenario's needs`);
    this.name = 'MissingCapabilityError';
  }
}

/** What the runner keeps of one scenario's environment to clean up after it. */
export interface EnvHandle {
  readonly env: ScenarioEnv;
  /** Runs the deferred cleanups, last first; answers the errors they threw. */
  cleanup(): Promise<unknown[]>;
  /** Deletes every key of every queue the scenario named: one SCAN per node and one DEL per queue. */
  purge(): Promise<void>;
}

export function scenarioEnv(target: ConformanceTarget, base: string, scenario: string): EnvHandle {
  const used = new Set<string>();
  const cleanups: (() => unknown)[] = [];
  const name = (suffix?: string): string => {
    const full = suffix === undefined ? `${base}.${scenario}` : `${base}.${scenario}.${suffix}`;
    used.add(full);
    return full;
  };
  const defer = (cleanup: () => unknown): void => void cleanups.push(cleanup);
  const closing = <T extends { close(): Promise<void> }>(resource: T): T => {
    defer(() => resource.close());
    return resource;
  };

  const env: ScenarioEnv = {
    target,
    scenario,
    name,
    defer,
    async queue(suffix): Promise<QueueLike> {
      if (target.openQueue === undefined) throw new MissingCapabilityError('openQueue');
      return target.openQueue(name(suffix));
    },
    async bus(suffix) {
      if (target.openBus === undefined) throw new MissingCapabilityError('openBus');
      return target.openBus(name(suffix));
    },
    command: (command, ...args) => target.wire.command(command, ...args),
    async run(script, keys, args = []) {
      if (target.wire.run === undefined) throw new MissingCapabilityError('wire.run');
      return target.wire.run(script, keys, args);
    },
    stats(): WireStats {
      if (target.wire.stats === undefined) throw new MissingCapabilityError('wire.stats');
      return target.wire.stats();
    },
    flushScripts: () => target.flushScripts(),
    scanKeys: (pattern) => target.scanKeys(pattern),
    mintId: (namespace) => target.mintId(namespace),
    async startWorker(queue, handler, options) {
      if (target.startWorker === undefined) throw new MissingCapabilityError('startWorker');
      return closing(await target.startWorker(queue, handler, options));
    },
    async startBatchWorker(queue, handler, options) {
      if (target.startBatchWorker === undefined) throw new MissingCapabilityError('startBatchWorker');
      return closing(await target.startBatchWorker(queue, handler, options));
    },
    async events(queue) {
      return closing(await queue.events());
    },
    async pool(size, suffix) {
      if (target.openPool === undefined) throw new MissingCapabilityError('openPool');
      return closing(await target.openPool(name(suffix), size)).members;
    },
    async subscriber() {
      if (target.openSubscriber === undefined) throw new MissingCapabilityError('openSubscriber');
      return closing(await target.openSubscriber());
    },
    async nodes() {
      if (target.nodes === undefined) throw new MissingCapabilityError('nodes');
      return target.nodes();
    },
    get host(): HostKit {
      if (target.host === undefined) throw new MissingCapabilityError('host');
      return target.host;
    },
    get ids(): IdKit {
      if (target.ids === undefined) throw new MissingCapabilityError('ids');
      return target.ids;
    },
  };

  return {
    env,
    async cleanup() {
      const errors: unknown[] = [];
      for (const cleanup of cleanups.splice(0).reverse()) {
        try {
          await cleanup();
        } catch (error) {
          errors.push(error);
        }
      }
      return errors;
    },
    async purge() {
      for (const queue of used) {
        const keys = await target.scanKeys(`emq:{${queue}}:*`);
        // One queue's keys share a hashtag, hence a slot: one DEL is legal on a cluster too.
        if (keys.length > 0) await target.wire.command('DEL', ...keys);
      }
    },
  };
}
