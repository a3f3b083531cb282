import { CancelledError } from '@echo/queue';

/**
 * The processor's abort signal as BullMQ hands it: `worker.cancelJob(id, reason)` aborts it with
 * the application's `reason` itself (BullMQ's processors read `signal.reason` as that string),
 * where Echo's signal carries a `CancelledError` naming it. Any other abort (the lock lost, a
 * timeout) passes its reason through unchanged.
 */
export function bullmqSignal(echo: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const forward = (): void => {
    const reason: unknown = echo.reason;
    controller.abort(reason instanceof CancelledError ? reason.reason : reason);
  };
  if (echo.aborted) forward();
  else echo.addEventListener('abort', forward, { once: true });
  return controller.signal;
}
