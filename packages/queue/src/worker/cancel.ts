import { EchoError } from '@echo/protocol/queue';

/** Thrown by {@link CancelToken.throwIfCancelled} once the job was cancelled. */
export class CancelledError extends EchoError {
  readonly reason: string;

  constructor(reason: string) {
    super('cancelled', `job cancelled: ${reason}`);
    this.reason = reason;
  }
}

/** What a check of a {@link CancelToken} answers. */
export type CancelCheck = { readonly cancelled: false } | { readonly cancelled: true; readonly reason: string };

/**
 * Cooperative cancellation for one running job (queue.md §6.5). Cancelling records a reason and
 * aborts `signal` (so fetch and timers can stop too); it kills nothing. A handler that never checks
 * runs to completion. Process-local: cancelling across nodes is out of scope.
 */
export class CancelToken {
  // Made on first use: most jobs never look at their signal, and a controller per job is not free.
  #controller: AbortController | undefined;
  #reason: string | undefined;
  #error: CancelledError | undefined;

  /** An `AbortSignal` aborted on cancel, for APIs that take one. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#reason !== undefined) this.#controller.abort(this.#error ?? new CancelledError(this.#reason));
    }
    return this.#controller.signal;
  }

  /**
   * Records the cancellation; later calls keep the first reason. `error` becomes the signal's abort
   * reason (a {@link CancelledError} naming `reason` when omitted).
   */
  cancel(reason = 'cancelled', error?: CancelledError): void {
    if (this.#reason !== undefined) return;
    this.#reason = reason;
    this.#error = error;
    this.#controller?.abort(error ?? new CancelledError(reason));
  }

  /** Never blocks. */
  check(): CancelCheck {
    return this.#reason === undefined ? { cancelled: false } : { cancelled: true, reason: this.#reason };
  }

  /** @throws CancelledError once cancelled. */
  throwIfCancelled(): void {
    if (this.#reason !== undefined) throw this.#error ?? new CancelledError(this.#reason);
  }
}
