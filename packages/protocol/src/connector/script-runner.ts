import { Redis } from 'ioredis';
import { EchoError } from '../errors/echo-error.js';
import type { Script } from '../scripts/script.js';
import { strictVariant } from '../scripts/strict.js';
import { checkCall, type Arg } from './call-shape.js';
import { sendBatch, type Client } from './clients.js';
import { isNoScript } from './failures.js';
import { checkDigest, loadOnMasters } from './script-load.js';
import type { ConnectionStats } from './stats.js';

/** One script call in a batch. */
export interface ScriptCall {
  readonly script: Script;
  readonly keys: readonly string[];
  readonly args: readonly Arg[];
}

/** The outcome of one member of a batch; members fail independently. */
export type BatchResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: Error };

/** What the script runner needs of its connection: the socket, the gate, the error mapping, the counters. */
export interface ScriptPort {
  readonly client: Client;
  readonly stats: ConnectionStats;
  /** Run every script as its strict twin (protocol.md §6). */
  readonly strictKeys: boolean;
  isReady(): boolean;
  /** Resolves once the connection is fenced and usable; rejects when it never will be. */
  whenReady(): Promise<void>;
  mapError(error: unknown, script?: Script): Error;
}

/**
 * Sends transitions by digest: every call goes out as EVALSHA, and a NOSCRIPT reply (a restart, a
 * `SCRIPT FLUSH`, a promoted replica) costs one `SCRIPT LOAD`, shared by every call that met it,
 * and one resend. On a cluster a node the load missed runs the source by `EVAL` instead.
 */
export class ScriptRunner {
  readonly #port: ScriptPort;
  readonly #loading = new Map<string, Promise<void>>();

  constructor(port: ScriptPort) {
    this.#port = port;
  }

  /**
   * Runs one transition: EVALSHA first; on NOSCRIPT, `SCRIPT LOAD` once, check the digest, resend
   * once. The resent call's errors map exactly like a first attempt's, so a cold script cache is
   * invisible to the caller.
   */
  async run(script: Script, keys: readonly string[], args: readonly Arg[]): Promise<unknown> {
    checkCall(script, keys, args);
    const port = this.#port;
    if (!port.isReady()) await port.whenReady();
    const s = port.strictKeys ? strictVariant(script) : script;
    port.stats.commands++;
    port.stats.evalshaCalls++;
    try {
      return await port.client.call('EVALSHA', s.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!isNoScript(error)) throw port.mapError(error, s);
      await this.#load(s);
      port.stats.evalshaCalls++;
      try {
        return await port.client.call('EVALSHA', s.sha, keys.length, ...keys, ...args);
      } catch (retryError) {
        if (!isNoScript(retryError) || !port.client.isCluster) throw port.mapError(retryError, s);
        return this.#evalSource(s, keys, args);
      }
    }
  }

  /**
   * Runs many transitions in one pipeline. Members are mapped one by one: a failing member never
   * fails its neighbours. Members that met NOSCRIPT are resent once after a load.
   */
  async runBatch(calls: readonly ScriptCall[]): Promise<BatchResult[]> {
    if (calls.length === 0) return [];
    for (const call of calls) checkCall(call.script, call.keys, call.args);
    const port = this.#port;
    if (!port.isReady()) await port.whenReady();
    const variants = calls.map((c) => (port.strictKeys ? strictVariant(c.script) : c.script));
    const results = await this.#pipelineEval(calls, variants, calls.map((_, i) => i));
    const cold = results.flatMap((r, i) => (!r.ok && isNoScript(r.error) ? [i] : []));
    if (cold.length > 0) {
      for (const s of new Set(cold.map((i) => variants[i] as Script))) await this.#load(s);
      const again = await this.#pipelineEval(calls, variants, cold);
      cold.forEach((index, j) => (results[index] = again[j] as BatchResult));
      if (port.client.isCluster) {
        for (const index of cold) {
          const r = results[index] as BatchResult;
          if (r.ok || !isNoScript(r.error)) continue;
          const call = calls[index] as ScriptCall;
          results[index] = await this.#evalSource(variants[index] as Script, call.keys, call.args).then(
            (value): BatchResult => ({ ok: true, value }),
            (error: unknown): BatchResult => ({ ok: false, error: error as Error }),
          );
        }
      }
    }
    return results.map((r, i) => (r.ok || r.error instanceof EchoError ? r : { ok: false, error: port.mapError(r.error, variants[i] as Script) }));
  }

  /** Concurrent NOSCRIPT replies for one script share a single load. */
  #load(script: Script): Promise<void> {
    let loading = this.#loading.get(script.sha);
    if (!loading) {
      loading = this.#loadNow(script).finally(() => this.#loading.delete(script.sha));
      this.#loading.set(script.sha, loading);
    }
    return loading;
  }

  /** Loads a script where it was missing: on the server, or on every master that answers. */
  async #loadNow(script: Script): Promise<void> {
    const { client, stats } = this.#port;
    stats.scriptLoads++;
    if (!(client instanceof Redis)) return loadOnMasters(client, script);
    let digest: unknown;
    try {
      digest = await client.call('SCRIPT', 'LOAD', script.source);
    } catch (error) {
      throw this.#port.mapError(error, script);
    }
    checkDigest(script, digest);
  }

  /**
   * Runs a script by its source on the node that owns its keys, which caches it there: the cluster
   * fallback for a node no load reached. Counted as a load.
   */
  async #evalSource(script: Script, keys: readonly string[], args: readonly Arg[]): Promise<unknown> {
    this.#port.stats.scriptLoads++;
    try {
      return await this.#port.client.call('EVAL', script.source, keys.length, ...keys, ...args);
    } catch (error) {
      throw this.#port.mapError(error, script);
    }
  }

  async #pipelineEval(calls: readonly ScriptCall[], variants: readonly Script[], indexes: readonly number[]): Promise<BatchResult[]> {
    const { client, stats } = this.#port;
    const commands = indexes.map((i): [string, ...Arg[]] => {
      const call = calls[i] as ScriptCall;
      return ['EVALSHA', (variants[i] as Script).sha, call.keys.length, ...call.keys, ...call.args];
    });
    stats.pipelines++;
    stats.commands += indexes.length;
    stats.evalshaCalls += indexes.length;
    const replies = await sendBatch(client, commands, (error) => this.#port.mapError(error));
    return replies.map(([error, value]) => (error ? { ok: false, error } : { ok: true, value }));
  }
}
