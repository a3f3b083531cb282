/** The per-scenario environment: sub-queue names, cleanups and the purge. */
import { execute, mintId } from '@echo/protocol/extend';
import type { ScenarioEnv } from './scenario.js';
import type { ConformanceTarget } from './target.js';

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
  const conn = target.connection;

  const env: ScenarioEnv = {
    target,
    scenario,
    name,
    defer,
    queue: (suffix) => target.openQueue(name(suffix)),
    bus: (suffix) => target.openBus(name(suffix)),
    command: (command, ...args) => conn.command(command, ...args),
    run: (script, keys, args = []) => target.runScript(script, keys, args),
    execute: (transition) => execute(conn, transition),
    stats: () => conn.stats(),
    flushScripts: () => target.flushScripts(),
    scanKeys: (pattern) => target.scanKeys(pattern),
    mintId: (namespace) => mintId(namespace),
    async startWorker(queue, handler, options) {
      return closing(await target.startWorker(queue, handler, options));
    },
    async startBatchWorker(queue, handler, options) {
      return closing(await target.startBatchWorker(queue, handler, options));
    },
    async events(queue) {
      return closing(await target.openEvents(queue));
    },
    async pool(size, suffix) {
      return closing(await target.openPool(name(suffix), size)).members;
    },
    async subscriber() {
      return closing(await target.openSubscriber());
    },
    nodes: () => target.nodes(),
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
        if (keys.length > 0) await conn.command('DEL', ...keys);
      }
    },
  };
}
