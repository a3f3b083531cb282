/** The outage mode's settings: what a namespace does when L2 errors or stalls. */
export interface OutageOptions {
  /** How long one L2 call may take before it counts as failed and the call falls back. Default 250. */
  readonly l2TimeoutMs?: number;
  /** Consecutive L2 failures that open the breaker. Default 3. */
  readonly failures?: number;
  /** How long an open breaker skips L2 before one probe is let through. Default 2000. */
  readonly openMs?: number;
}

/** The breaker's state, as stats report it. */
export type BreakerState = 'closed' | 'open' | 'half-open';

/** Raised inside the namespace when the breaker refuses an L2 call; callers see the fallback, not this. */
export class BreakerOpen extends Error {
  constructor() {
    super('L2 circuit breaker is open');
  }
}

/** Raised inside the namespace when an L2 call outlives `l2TimeoutMs`. */
export class L2Timeout extends Error {
  constructor(ms: number) {
    super(`L2 call took longer than ${ms} ms`);
  }
}

/**
 * A circuit breaker over L2: after `failures` consecutive failures it opens and refuses calls for
 * `openMs`; then one probe goes through (half-open), and its outcome closes or reopens it. A
 * stopped or unreachable server therefore costs callers one timeout each for the first few calls,
 * then nothing until the probe.
 */
export class Breaker {
  readonly #failures: number;
  readonly #openMs: number;
  readonly #now: () => number;
  #consecutive = 0;
  #openUntil = 0;
  #probing = false;
  #opens = 0;
  #onOpen: () => void;

  constructor(failures: number, openMs: number, now: () => number, onOpen: () => void) {
    this.#failures = failures;
    this.#openMs = openMs;
    this.#now = now;
    this.#onOpen = onOpen;
  }

  get state(): BreakerState {
    if (this.#openUntil === 0) return 'closed';
    return this.#now() < this.#openUntil || this.#probing ? (this.#probing ? 'half-open' : 'open') : 'half-open';
  }

  /** Times the breaker opened. */
  get opens(): number {
    return this.#opens;
  }

  /** Whether L2 is believed reachable: closed, or half-open with its probe not yet sent. */
  get closed(): boolean {
    return this.#openUntil === 0;
  }

  /** Asks to call L2: `true` to go ahead (maybe as the probe), `false` to fall back now. */
  allow(): boolean {
    if (this.#openUntil === 0) return true;
    if (this.#probing || this.#now() < this.#openUntil) return false;
    this.#probing = true;
    return true;
  }

  success(): void {
    this.#consecutive = 0;
    this.#openUntil = 0;
    this.#probing = false;
  }

  failure(): void {
    this.#consecutive++;
    if (this.#probing || (this.#openUntil === 0 && this.#consecutive >= this.#failures)) {
      if (this.#openUntil === 0) {
        this.#opens++;
        this.#onOpen();
      }
      this.#probing = false;
      this.#openUntil = this.#now() + this.#openMs;
    }
  }
}

/** Settles with `promise`, or rejects with {@link L2Timeout} after `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new L2Timeout(ms)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
