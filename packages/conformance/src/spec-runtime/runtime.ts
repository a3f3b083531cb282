/**
 * The spec-only runtime: an EchoMQ peer built from `../shared/spec/` alone, with its own Lua and its
 * own ioredis client, that keeps none of Echo's `[TS]` keys, fields or scripts. The mixed
 * conformance mode runs it beside Echo on one queue, so Echo is judged against a runtime that
 * maintains only what the spec names. Its fence accepts exactly one version (configurable), as the
 * as-built runtime of the spec's source does, so it is also the strict peer of the version fence.
 */
import type { Cluster, Redis } from 'ioredis';
import { Minter, xaddIdOf } from './ids.js';
import * as lanes from './lua-lanes.js';
import * as flat from './lua-queue.js';
import type { SpecScript } from './script.js';

/** The one fence key (protocol.md §10). */
export const SPEC_FENCE_KEY = '{emq}:version';
/** The version the runtime claims and accepts unless told otherwise. */
export const SPEC_VERSION = 'echomq:3.0.0';

/** The fence refused the stored value (this runtime accepts only its exact version). */
export class SpecFenceError extends Error {
  override readonly name = 'SpecFenceError';
  constructor(readonly found: string | null, readonly expected: string) {
    super(`{emq}:version holds ${JSON.stringify(found)}; this runtime accepts only ${expected}`);
  }
}

/** A script error reply, split at its class word (`EMQSTALE job gone` → class `EMQSTALE`). */
export class SpecScriptError extends Error {
  override readonly name = 'SpecScriptError';
  readonly errorClass: string;
  readonly detail: string;
  constructor(message: string) {
    super(message);
    const space = message.indexOf(' ');
    this.errorClass = space < 0 ? message : message.slice(0, space);
    this.detail = space < 0 ? '' : message.slice(space + 1);
  }
}

/** A job the runtime claimed: its token is the row's `attempts`. */
export interface SpecClaim {
  readonly id: string;
  readonly payload: string;
  readonly token: number;
  readonly group: string | undefined;
}

/** How the runtime connects. */
export interface SpecRuntimeOptions {
  /** A standalone or cluster ioredis client; the runtime never closes it. */
  readonly client: Redis | Cluster;
  /** The one version the fence claims and accepts; default {@link SPEC_VERSION}. */
  readonly version?: string;
  /** The node field of minted ids, 0..1023; default 777. */
  readonly node?: number;
}

type Arg = string | number;

/** One runtime handle; `queue(name)` gives the transitions of one queue. */
export class SpecRuntime {
  readonly #client: Redis | Cluster;
  readonly #minter: Minter;
  readonly version: string;

  private constructor(options: SpecRuntimeOptions) {
    this.#client = options.client;
    this.version = options.version ?? SPEC_VERSION;
    this.#minter = new Minter(options.node ?? 777);
  }

  /** Connects: claim-or-verify the fence, accepting only the exact configured version. */
  static async connect(options: SpecRuntimeOptions): Promise<SpecRuntime> {
    const runtime = new SpecRuntime(options);
    let found = await runtime.#client.get(SPEC_FENCE_KEY);
    if (found === null) {
      await runtime.#client.set(SPEC_FENCE_KEY, runtime.version, 'NX');
      found = await runtime.#client.get(SPEC_FENCE_KEY);
    }
    if (found !== runtime.version) throw new SpecFenceError(found, runtime.version);
    return runtime;
  }

  /** A fresh branded id of `ns`. */
  mint(ns: string): string {
    return this.#minter.mint(ns);
  }

  /** The transitions of queue `name`. */
  queue(name: string): SpecQueue {
    return new SpecQueue(name, this);
  }

  /** EVALSHA, loading the script on NOSCRIPT and sending it once more (protocol.md §8). */
  async run(script: SpecScript, keys: readonly string[], args: readonly Arg[]): Promise<unknown> {
    try {
      try {
        return await this.#client.evalsha(script.sha, keys.length, ...keys, ...args);
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
        return await this.#client.eval(script.source, keys.length, ...keys, ...args);
      }
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('EMQ')) throw new SpecScriptError(error.message);
      throw error;
    }
  }

  /** A plain command, for the stream verbs (append is an XADD, not a script: bus.md §2.2). */
  async command(name: string, ...args: Arg[]): Promise<unknown> {
    return this.#client.call(name, ...args);
  }
}

const LB = ['gactive', 'glimit', 'ring', 'wake', 'paused'] as const;

/** One queue's transitions, each one script with every key declared (protocol.md §6). */
export class SpecQueue {
  readonly base: string;

  constructor(
    readonly name: string,
    readonly runtime: SpecRuntime,
  ) {
    this.base = `emq:{${name}}:`;
  }

  key(suffix: string): string {
    return this.base + suffix;
  }
  row(id: string): string {
    return `${this.base}job:${id}`;
  }
  lane(group: string): string {
    return `${this.base}g:${group}:pending`;
  }
  #lb(): string[] {
    return LB.map((s) => this.key(s));
  }

  async enqueue(payload: string, id = this.runtime.mint('JOB')): Promise<string> {
    await this.runtime.run(flat.enqueue, [this.row(id), this.key('pending')], [id, payload]);
    return id;
  }

  async laneEnqueue(group: string, payload: string, id = this.runtime.mint('JOB')): Promise<string> {
    const keys = [this.row(id), this.lane(group), ...['ring', 'paused', 'glimit', 'gactive', 'wake'].map((s) => this.key(s))];
    await this.runtime.run(lanes.genqueue, keys, [id, payload, group]);
    return id;
  }

  async claim(leaseMs: number): Promise<SpecClaim | undefined> {
    const reply = (await this.runtime.run(flat.claim, [this.key('pending'), this.key('active'), this.key('meta'), this.key('job:')], [leaseMs])) as unknown[];
    if (reply.length === 0) return undefined;
    return { id: String(reply[0]), payload: String(reply[1]), token: Number(reply[2]), group: undefined };
  }

  async laneClaim(leaseMs: number): Promise<SpecClaim | undefined> {
    const keys = ['ring', 'active', 'meta', 'gactive', 'glimit', 'job:', 'g:'].map((s) => this.key(s));
    const reply = (await this.runtime.run(lanes.gclaim, keys, [leaseMs])) as unknown[];
    if (reply.length === 0) return undefined;
    return { id: String(reply[0]), payload: String(reply[1]), token: Number(reply[2]), group: String(reply[3]) };
  }

  #settleKeys(id: string, metric: string): string[] {
    return [this.key('active'), this.key('pending'), this.key('schedule'), this.key('dead'), this.row(id), this.key(metric), ...this.#lb(), this.key('g:')];
  }

  /** Host-side, after the verdict (bus.md §1.2): best effort, a failed publish never fails the transition. */
  async #publish(event: string, id: string): Promise<void> {
    await this.runtime.command('PUBLISH', this.key('events'), JSON.stringify({ event, job: id })).catch(() => undefined);
  }

  async complete(id: string, token: number): Promise<void> {
    await this.runtime.run(flat.complete, this.#settleKeys(id, 'metrics:completed'), [id, token]);
    await this.#publish('completed', id);
  }

  async retry(id: string, token: number, delayMs: number, maxAttempts: number, error: string): Promise<'scheduled' | 'dead'> {
    const verdict = (await this.runtime.run(flat.retry, this.#settleKeys(id, 'metrics:failed'), [id, token, delayMs, maxAttempts, error])) as 'scheduled' | 'dead';
    // The spec's event carries no `outcome` (that field is [TS]): a reader learns the verdict from the row.
    await this.#publish('failed', id);
    return verdict;
  }

  async delay(id: string, token: number, ms: number): Promise<void> {
    await this.runtime.run(flat.delay, [this.key('active'), this.key('schedule'), this.row(id), ...this.#lb(), this.key('g:')], [id, token, 'in', ms]);
  }

  async promote(limit = 100): Promise<number> {
    return Number(await this.runtime.run(flat.promote, [this.key('schedule'), this.key('pending'), ...this.#lb(), this.key('job:'), this.key('g:')], [limit]));
  }

  /** 1 reprocessed, -1 gone; `EMQSTATE not dead` throws. */
  async reprocess(id: string): Promise<number> {
    return Number(await this.runtime.run(flat.reprocess, [this.row(id), this.key('dead'), this.key('pending'), ...this.#lb(), this.key('g:')], [id]));
  }

  /** 1 removed, -1 gone. */
  async remove(id: string): Promise<number> {
    const keys = [this.key('pending'), this.key('active'), this.key('schedule'), this.key('dead'), ...this.#lb(), this.key('job:'), this.key('g:')];
    return Number(await this.runtime.run(flat.removeJob, keys, [id]));
  }

  async reap(limit = 100): Promise<number> {
    return Number(await this.runtime.run(flat.reap, [this.key('active'), this.key('pending'), ...this.#lb(), this.key('job:'), this.key('g:')], [limit]));
  }

  async laneLimit(group: string, limit: number): Promise<void> {
    const keys = [...['glimit', 'gactive', 'ring', 'paused', 'wake'].map((s) => this.key(s)), this.lane(group)];
    await this.runtime.run(lanes.glimit, keys, [group, limit]);
  }

  async lanePause(group: string): Promise<void> {
    await this.runtime.run(lanes.gpause, [this.key('paused'), this.key('ring')], [group]);
  }

  async laneResume(group: string): Promise<void> {
    const keys = [...['paused', 'ring', 'glimit', 'gactive', 'wake'].map((s) => this.key(s)), this.lane(group)];
    await this.runtime.run(lanes.gresume, keys, [group]);
  }

  async pause(): Promise<void> {
    await this.runtime.run(flat.queuePause, [this.key('meta')], []);
  }

  async resume(): Promise<void> {
    await this.runtime.run(flat.queueResume, [this.key('meta')], []);
  }

  /** Pauses, then obliterates in bounded steps until done (queue.md §8.4). */
  async obliterate(options: { readonly force?: boolean; readonly budget?: number } = {}): Promise<void> {
    await this.pause();
    for (;;) {
      const names = ((await this.runtime.command('ZRANGE', this.key('repeat'), 0, -1)) as unknown[]).map(String);
      const keys = [
        'meta', 'pending', 'active', 'schedule', 'dead', 'ring', 'paused', 'glimit', 'gactive', 'gweight', 'wake', 'limiter',
        'metrics:completed', 'metrics:failed', 'metrics:completed:data', 'metrics:failed:data', 'repeat', 'flow:outbox', 'job:', 'g:',
      ].map((s) => this.key(s));
      const more = await this.runtime.run(lanes.obliterate, [...keys, ...names.map((n) => this.key(`repeat:${n}`))], [options.force === true ? 'force' : '', options.budget ?? 1000, ...names]);
      if (Number(more) === 0) return;
    }
  }

  /** Appends one record to `stream:<name>` under a fresh EVT id (bus.md §2.2); answers the id. */
  async append(stream: string, fields: Readonly<Record<string, string>>): Promise<string> {
    const id = this.runtime.mint('EVT');
    await this.runtime.command('XADD', this.key(`stream:${stream}`), xaddIdOf(id), 'id', id, ...Object.entries(fields).flat());
    return id;
  }

  /** `XRANGE` of the stream: each record's branded id and its fields without `id`. */
  async read(stream: string): Promise<{ id: string; fields: Record<string, string> }[]> {
    const entries = (await this.runtime.command('XRANGE', this.key(`stream:${stream}`), '-', '+')) as [string, string[]][];
    return entries.map(([, flatFields]) => {
      const fields: Record<string, string> = {};
      let id = '';
      for (let i = 0; i + 1 < flatFields.length; i += 2) {
        const [k, v] = [String(flatFields[i]), String(flatFields[i + 1])];
        if (k === 'id') id = v;
        else fields[k] = v;
      }
      return { id, fields };
    });
  }
}
