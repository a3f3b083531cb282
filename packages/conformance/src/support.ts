/** Small helpers the scenarios share: waiting, error checks by class, and raw reads of the keyspace. */
import assert from 'node:assert/strict';
import type { Queue } from '@echo/queue';
import { waitFor } from '@echo/testkit';
import type { ScenarioEnv } from './scenario.js';

export { rejection, sleep } from '@echo/testkit';

/** Polls `check` until it holds; fails naming `what` after `timeoutMs`. */
export function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  return waitFor(check, { what, timeoutMs });
}

/** Runs a function that must throw synchronously, and answers what it threw. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new assert.AssertionError({ message: 'expected a throw, but the call returned' });
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Asserts `error` is exactly a `type` (a subclass does not do: `GoneError` is not a `StaleError`
 * here), and that every other field given (`code`, `errorClass`, `detail`, …) matches too.
 */
export function assertError(error: unknown, type: abstract new (...args: never[]) => Error, fields: Readonly<Record<string, string>> = {}): void {
  const name = type.name;
  assert.ok(error instanceof type && error.name === name, `expected ${name}, got ${describe(error)}`);
  const carried = error as Error & Record<string, unknown>;
  for (const [field, expected] of Object.entries(fields)) {
    assert.equal(carried[field], expected, `${name}.${field}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(carried[field])}`);
  }
}

/** `value`, or a failure naming `what` when it is missing. */
export function present<T>(value: T | undefined | null, what: string): T {
  if (value === undefined || value === null) throw new assert.AssertionError({ message: `expected ${what}, got ${String(value)}` });
  return value;
}

/** Asserts every field of `expected` is present in `actual` with an equal value (other fields are free). */
export function assertFields(actual: object | undefined, expected: Readonly<Record<string, unknown>>, what: string): void {
  assert.ok(actual !== undefined, `${what}: expected a value, got undefined`);
  const record = actual as Readonly<Record<string, unknown>>;
  for (const [field, value] of Object.entries(expected)) {
    assert.deepEqual(record[field], value, `${what}.${field}: expected ${JSON.stringify(value)}, got ${JSON.stringify(record[field])}`);
  }
}

type Wire = Pick<ScenarioEnv, 'command'>;

/** HGETALL as a plain object, whichever reply shape the client maps to. */
export async function hgetall(env: Wire, key: string): Promise<Record<string, string>> {
  const reply = await env.command('HGETALL', key);
  const out: Record<string, string> = {};
  if (Array.isArray(reply)) {
    for (let i = 0; i + 1 < reply.length; i += 2) out[String(reply[i])] = String(reply[i + 1]);
    return out;
  }
  if (reply instanceof Map) {
    for (const [field, value] of reply) out[String(field)] = String(value);
    return out;
  }
  for (const [field, value] of Object.entries(reply as Record<string, unknown>)) out[field] = String(value);
  return out;
}

/** ZSCORE as a number, or `null` when the member is absent. */
export async function zscore(env: Wire, key: string, member: string): Promise<number | null> {
  const reply = await env.command('ZSCORE', key, member);
  return reply === null ? null : Number(reply);
}

/** `ZRANGE key 0 -1` as strings. */
export async function zrange(env: Wire, key: string): Promise<string[]> {
  return ((await env.command('ZRANGE', key, 0, -1)) as unknown[]).map(String);
}

/** `LRANGE key 0 -1` as strings. */
export async function lrange(env: Wire, key: string): Promise<string[]> {
  return ((await env.command('LRANGE', key, 0, -1)) as unknown[]).map(String);
}

/** A number reply (integer replies may arrive as strings from some clients). */
export async function count(env: Wire, name: string, ...args: (string | number)[]): Promise<number> {
  return Number(await env.command(name, ...args));
}

/** Which of the four flat sets holds `id` (by ZSCORE), as the wire sees it. */
export async function setsHolding(env: Wire, q: Queue, id: string): Promise<string[]> {
  const held: string[] = [];
  for (const set of ['pending', 'active', 'schedule', 'dead'] as const) {
    if ((await zscore(env, q.keys[set], id)) !== null) held.push(set);
  }
  return held;
}

/** Byte order of two strings, as `ZRANGE BYLEX` and `SORT ALPHA` compare them. */
export function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
