/**
 * When a worker's `drained` event fires: once per busy spell, at the moment the worker has run out
 * of work. That is when all of these hold at once: it started a handler since the last `drained`;
 * no handler of it is running or settling; it holds nothing ahead of its handlers; no claim of it
 * is in flight; and its latest claim (or look at the queue) found nothing. A slot that finds the
 * queue empty while another still runs its job does not fire it: the worker is not drained until
 * that job is settled too. A paused or closing worker does not fire it.
 */
export class DrainWatch {
  readonly #fire: () => void;
  readonly #open: () => boolean;
  readonly #held: () => number;
  #busy = false;
  #dry = false;
  #inHand = 0;
  #asking = 0;

  /**
   * `open`: the worker may start handlers (running, not paused). `held`: how many jobs or batches it
   * holds ahead of its handlers.
   */
  constructor(fire: () => void, open: () => boolean, held: () => number) {
    this.#fire = fire;
    this.#open = open;
    this.#held = held;
  }

  /** A handler started (on one job, or one batch). */
  started(): void {
    this.#busy = true;
    this.#dry = false;
    this.#inHand++;
  }

  /** A handler that {@link started} has finished and its job (or batch) is settled. */
  settled(): void {
    this.#inHand--;
    this.#check();
  }

  /**
   * Watches a claim in flight; `empty` tells whether its answer found nothing. Answers the same
   * promise (its rejection is the caller's to handle).
   */
  asking<R>(claim: Promise<R>, empty: (answer: R) => boolean): Promise<R> {
    this.#asking++;
    claim.then(
      (answer) => {
        this.#asking--;
        this.found(!empty(answer));
      },
      () => {
        this.#asking--;
      },
    );
    return claim;
  }

  /** A look at the queue (a claim, or a read of its depth) found work, or found none. */
  found(work: boolean): void {
    // While paused or closing an empty answer says nothing about the queue.
    if (!this.#open()) return;
    this.#dry = !work;
    this.#check();
  }

  #check(): void {
    if (!this.#busy || !this.#dry || this.#inHand > 0 || this.#asking > 0) return;
    if (this.#held() > 0 || !this.#open()) return;
    this.#busy = false;
    this.#fire();
  }
}
