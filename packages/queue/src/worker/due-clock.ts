import { parseWakeToken } from '@echo/protocol/queue';
import type { Maintenance } from '../lease/maintenance.js';

/** How many due jobs one wake-up moves; a full batch re-arms at once for the rest. */
const BATCH = 100;

/**
 * The longest the timer is armed for: a far-off job re-arms from a fresh answer every ten minutes,
 * which keeps Node's timer range (about 24.8 days) and a suspended host's drift out of the picture.
 */
const MAX_ARM_MS = 600_000;

/** Pause before trying a wake-up again after the promote failed. */
const RETRY_MS = 1_000;

/**
 * Wakes a worker when its queue's earliest scheduled job falls due, instead of at the next
 * maintenance tick. It keeps one local timer armed at the schedule's head, learned from the server
 * (`promote_next` answers the wait on the server clock, so host clock skew does not matter) and
 * from due hints on the wake list. When the timer fires it promotes; the promote pushes a wake
 * token, which the worker's blocking read picks up like any other. An idle worker with nothing
 * scheduled sends nothing extra: the timer is armed only while the schedule holds a job.
 */
export class DueClock {
  readonly #maintenance: Maintenance;
  readonly #onError: (error: unknown) => void;
  #timer: NodeJS.Timeout | undefined;
  /** Local epoch ms the timer is armed for. */
  #at = Number.POSITIVE_INFINITY;
  #firing: Promise<void> | undefined;
  /** A wake-up came due while one was in flight: its answer may predate the job, so go again. */
  #again = false;
  #stopped = false;

  constructor(maintenance: Maintenance, onError: (error: unknown) => void) {
    this.#maintenance = maintenance;
    this.#onError = onError;
  }

  /** Makes sure the clock fires no later than `inMs` from now (an earlier arming stands). */
  expect(inMs: number): void {
    if (this.#stopped || !Number.isFinite(inMs) || inMs < 0) return;
    const wait = Math.min(inMs, MAX_ARM_MS);
    const at = Date.now() + wait;
    if (at >= this.#at) return;
    clearTimeout(this.#timer);
    this.#at = at;
    if (wait === 0) {
      // Due now (a job admitted for a time the server clock has passed hints 0): no timer to wait
      // for, so an application's faked timers (sinon, vitest) cannot hold the promote back.
      this.#timer = undefined;
      queueMicrotask(() => {
        if (this.#at === at) this.#fire();
      });
      return;
    }
    this.#timer = setTimeout(() => this.#fire(), wait);
    this.#timer.unref();
  }

  /**
   * Reads one token off the wake list: a due hint arms the clock and answers true (it names no
   * claimable job, so no slot should wake for it); any other token answers false.
   */
  hint(token: string): boolean {
    const parsed = parseWakeToken(token);
    if (parsed.kind !== 'due') return false;
    this.expect(parsed.inMs);
    return true;
  }

  /** Waits for a wake-up in progress and fires no more. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#firing;
  }

  #fire(): void {
    this.#timer = undefined;
    this.#at = Number.POSITIVE_INFINITY;
    if (this.#stopped) return;
    if (this.#firing !== undefined) {
      this.#again = true;
      return;
    }
    this.#firing = this.#promote().finally(() => {
      this.#firing = undefined;
      if (this.#again) {
        this.#again = false;
        this.expect(0);
      }
    });
  }

  async #promote(): Promise<void> {
    try {
      const { moved, nextInMs } = await this.#maintenance.promoteNext(BATCH);
      this.expect(moved === BATCH ? 0 : nextInMs);
    } catch (error) {
      this.#onError(error);
      // The server did not answer; try again soon rather than leave due work to the maintenance tick.
      this.expect(RETRY_MS);
    }
  }
}
