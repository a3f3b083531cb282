/** A promise with its settle functions exposed; the connector's readiness gate is one, and the pillars use the same. */
export interface Deferred<T> {
  /** Settles when {@link Deferred.resolve} or {@link Deferred.reject} is called. */
  readonly promise: Promise<T>;
  /** Fulfils the promise with `value`. */
  readonly resolve: (value: T) => void;
  /** Rejects the promise; a value that is not an `Error` is wrapped in one. */
  readonly reject: (error: unknown) => void;
  /** True once either settle function ran. */
  readonly settled: () => boolean;
}

/** Creates a {@link Deferred} whose rejection is never reported as unhandled. */
export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  let done = false;
  const promise = new Promise<T>((res, rej) => {
    resolve = (value) => {
      done = true;
      res(value);
    };
    reject = (error) => {
      done = true;
      rej(error instanceof Error ? error : new Error(String(error)));
    };
  });
  // Waiters attach their own handlers; a gate nobody waits on must not crash the process.
  promise.catch(() => undefined);
  return { promise, resolve, reject, settled: () => done };
}

/**
 * The host's timers as they were when the connector loaded: a connection deadline is about the
 * network, so an application that fakes its clock (sinon, vitest's fake timers) after that does not
 * time out a connection that is still opening when it moves its clock on.
 */
const { setTimeout: hostSetTimeout, clearTimeout: hostClearTimeout } = globalThis;

/** Rejects with `onTimeout()` if `promise` has not settled within `ms` (on the host's own clock). */
export async function within<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = hostSetTimeout(() => reject(onTimeout()), ms);
        timer.unref();
      }),
    ]);
  } finally {
    hostClearTimeout(timer);
  }
}
