/** Small vitest helpers the worker-behaviour tests share. */
import { waitFor } from '@echo/testkit';
import { expect } from 'vitest';

export { rejection, sleep } from '@echo/testkit';

/** Polls `check` until it holds; fails naming `what` after `timeoutMs`. */
export function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  return waitFor(check, { what, timeoutMs });
}

/**
 * Awaits `work`, failing naming `what` once `timeoutMs` passes first: a step that can hang says which
 * it was, where a test's own timeout names only the test.
 */
export async function within<T>(work: Promise<T>, what: string, timeoutMs = 45_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still pending after ${String(timeoutMs)} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** HGETALL as a plain object, whichever reply shape the client maps to. */
export async function hgetall(wire: { command(name: string, ...args: (string | number)[]): Promise<unknown> }, key: string): Promise<Record<string, string>> {
  const reply = await wire.command('HGETALL', key);
  if (!Array.isArray(reply)) return { ...(reply as Record<string, string>) };
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) out[String(reply[i])] = String(reply[i + 1]);
  return out;
}

/** Asserts an error is an instance of `type`, with its message for context when it is not. */
export function expectError(error: unknown, type: abstract new (...args: never[]) => Error): void {
  expect(error, error instanceof Error ? `${error.name}: ${error.message}` : String(error)).toBeInstanceOf(type);
}
