/**
 * The conformance harness (conformance.md, "Harness rules"): a scenario runs against a fenced
 * connection on its own sub-queues `<base>.<scenario>[.suffix]`, and everything it touched is
 * purged afterwards, pass or fail.
 */
import { Cluster } from 'ioredis';
import { expect } from 'vitest';
import type { Connection } from '@echo/protocol';
import { Queue, type Codec } from '../../src/index.js';

/** What a scenario gets to drive the server with. */
export interface ScenarioEnv {
  /** A fenced connection with strict key mode on. */
  readonly conn: Connection;
  /** Opens a queue on `<base>.<scenario>[.suffix]`; it is purged after the scenario. */
  queue<T = unknown>(suffix?: string, codec?: Codec<T>): Promise<Queue<T>>;
  /** A raw command through the connection (same gate and error mapping). */
  command(name: string, ...args: (string | number)[]): Promise<unknown>;
  /** `SCRIPT FLUSH` on every node that holds scripts. */
  flushScripts(): Promise<void>;
  /** Every key matching `pattern` on every master (SCAN, never KEYS). */
  scanKeys(pattern: string): Promise<string[]>;
}

/** One conformance scenario. `skip` marks one that is not built here (reported, never failed). */
export interface Scenario {
  /** The number in conformance.md; TS-only extensions carry none. */
  readonly no?: number;
  readonly name: string;
  readonly contract: string;
  readonly skip?: string;
  run(env: ScenarioEnv): Promise<void>;
}

/** The `run` of a scenario another engineer builds; the suite never calls it. */
export const notBuilt = (): Promise<void> => Promise.reject(new Error('not built here'));

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 10 ms until it holds; fails with `what` after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Awaits a promise that must reject, and answers the rejection for further checks. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, but the call succeeded');
}

/** HGETALL as a plain object, whichever reply shape the client maps to. */
export async function hgetall(env: Pick<ScenarioEnv, 'command'>, key: string): Promise<Record<string, string>> {
  const reply = await env.command('HGETALL', key);
  if (!Array.isArray(reply)) return { ...(reply as Record<string, string>) };
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) out[String(reply[i])] = String(reply[i + 1]);
  return out;
}

/** ZSCORE as a number, or `null` when the member is absent. */
export async function zscore(env: Pick<ScenarioEnv, 'command'>, key: string, member: string): Promise<number | null> {
  const reply = await env.command('ZSCORE', key, member);
  return reply === null ? null : Number(reply);
}

/** Which of the four flat sets holds `id` (by ZSCORE), as the wire sees it. */
export async function setsHolding(env: Pick<ScenarioEnv, 'command'>, q: Queue, id: string): Promise<string[]> {
  const held: string[] = [];
  for (const set of ['pending', 'active', 'schedule', 'dead'] as const) {
    if ((await zscore(env, q.keys[set], id)) !== null) held.push(set);
  }
  return held;
}

/** Asserts an error is an instance of `type`, with its message for context when it is not. */
export function expectError(error: unknown, type: abstract new (...args: never[]) => Error): void {
  expect(error, error instanceof Error ? `${error.name}: ${error.message}` : String(error)).toBeInstanceOf(type);
}

async function scanNode(node: { call(...args: (string | number)[]): Promise<unknown> }, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = (await node.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)) as [string, string[]];
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

/** SCAN over a standalone server, or over every master of a cluster. */
export async function scanAll(conn: Connection, pattern: string): Promise<string[]> {
  const client = conn.client;
  const nodes = client instanceof Cluster ? client.nodes('master') : [client];
  const all = await Promise.all(nodes.map((node) => scanNode(node, pattern)));
  return all.flat();
}

/** Builds the per-scenario env, and the purge that runs after it. */
export function scenarioEnv(
  conn: Connection,
  base: string,
  scenario: string,
  flushScripts: () => Promise<void>,
): { env: ScenarioEnv; purge: () => Promise<void> } {
  const used = new Set<string>();
  const env: ScenarioEnv = {
    conn,
    async queue<T>(suffix?: string, codec?: Codec<T>): Promise<Queue<T>> {
      const name = suffix === undefined ? `${base}.${scenario}` : `${base}.${scenario}.${suffix}`;
      used.add(name);
      return Queue.open<T>(name, codec === undefined ? { connection: conn } : { connection: conn, codec });
    },
    command: (name, ...args) => conn.command(name, ...args),
    flushScripts,
    scanKeys: (pattern) => scanAll(conn, pattern),
  };
  const purge = async (): Promise<void> => {
    for (const name of used) {
      const keys = await scanAll(conn, `emq:{${name}}:*`);
      // One queue's keys share a hashtag, hence a slot: one DEL is legal on a cluster too.
      if (keys.length > 0) await conn.command('DEL', ...keys);
    }
  };
  return { env, purge };
}

/** A line per scenario in the conformance output format, then the total (conformance.md). */
export function report(results: readonly { name: string; contract: string; verdict: string }[]): string {
  const lines = results.map((r) => `CONF ${r.name} ${r.verdict} -- ${r.contract}`);
  const run = results.filter((r) => !r.verdict.startsWith('skip'));
  lines.push(`CONFORMANCE ${run.filter((r) => r.verdict === 'ok').length}/${run.length}`);
  return lines.join('\n');
}
