/** How {@link waitFor} polls. */
export interface WaitOptions {
  /** Give up after this many ms. Default 15,000: a wait ends when its condition holds, so the bound only has to outlast a loaded machine. */
  readonly timeoutMs?: number;
  /** Poll period. Default 10 ms. */
  readonly everyMs?: number;
  /** What is awaited, for the timeout message. */
  readonly what?: string;
}

/** A timer-based pause for tests. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `check` until it answers true: tests against a real server wait for an effect to appear
 * rather than sleeping a guessed time. Rejects naming `what` after `timeoutMs`; a throwing check
 * rejects at once. The deadline is kept on the monotonic clock, so a test that steps or mocks
 * `Date.now()` does not move it.
 */
export async function waitFor(check: () => boolean | Promise<boolean>, options: WaitOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what ?? 'a condition'}`);
    await sleep(options.everyMs ?? 10);
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
