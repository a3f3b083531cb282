import { checkTimeBound, InvalidArgumentError, RenamedError, assertQueueName, assertStreamName, type Connection } from '@echo/protocol/bus';
import { streamKey } from '../core/keys.js';
import { checkRetentionOptions, checkRetentionTarget, checkTrimWindow } from './option-checks.js';
import { trim, trimInput, type TrimWindow } from './trim.js';

/**
 * A retention window: a {@link TrimWindow}, or a `minid` relative to the driver's clock,
 * `{minid: {ago: ms}}`, resolved on every tick as `now − ago` (bus.md §5).
 */
export type RetentionWindow = TrimWindow | { readonly minid: { readonly ago: number }; readonly approx?: boolean };

/** One stream the driver keeps trimmed. */
export interface RetentionTarget {
  /** The hashtag of the stream's keys: its queue, or the stream's own name on a bus without a queue. */
  readonly queue: string;
  /** The stream name. */
  readonly name: string;
  /** How much of it to keep. */
  readonly window: RetentionWindow;
}

/** How a {@link RetentionDriver} runs. */
export interface RetentionOptions {
  /** Time between ticks. Default 1000 ms. */
  readonly intervalMs?: number;
  /** Unix milliseconds, for relative windows. Default `Date.now`; inject one to test. */
  readonly now?: () => number;
  /** Where a failed trim is logged before it is skipped. Default: `console.warn`. */
  readonly onError?: (error: unknown, target: RetentionTarget) => void;
}

/** What one tick did for one target. */
export type RetentionOutcome =
  | { readonly target: RetentionTarget; readonly ok: true; readonly removed: number }
  | { readonly target: RetentionTarget; readonly ok: false; readonly error: unknown };

function isRelative(window: RetentionWindow): window is { readonly minid: { readonly ago: number }; readonly approx?: boolean } {
  return 'minid' in window && typeof window.minid === 'object' && !(window.minid instanceof Date);
}

function checkAgo(window: { readonly minid: { readonly ago: number } }): number {
  const ago: unknown = (window.minid as { ago?: unknown } | null)?.ago;
  if (typeof ago !== 'number' || !Number.isSafeInteger(ago) || ago < 0) {
    throw new InvalidArgumentError('window.minid.ago', `must be an integer >= 0 (ms), got ${String(ago)}`);
  }
  checkTimeBound('window.minid', 'ago', ago, 'span');
  return ago;
}

/**
 * Checks a window's shape without reading any clock.
 *
 * @throws InvalidArgumentError for a malformed window.
 */
export function checkWindow(window: RetentionWindow): void {
  if (typeof window !== 'object' || (window as object | null) === null) throw new InvalidArgumentError('window', 'must be {maxlen}, {minid} or {minid: {ago}}');
  checkTrimWindow(window);
  if (!isRelative(window)) {
    trimInput(window);
    return;
  }
  checkAgo(window);
  trimInput(window.approx === undefined ? { minid: 0 } : { minid: 0, approx: window.approx });
}

/**
 * Resolves a window against `now`: a relative `minid` becomes the instant `now − ago`.
 *
 * @throws InvalidArgumentError for a malformed window, or when `now − ago` is no valid instant.
 */
export function resolveWindow(window: RetentionWindow, now: number): TrimWindow {
  checkWindow(window);
  if (!isRelative(window)) return window;
  const minid = now - checkAgo(window);
  const resolved: TrimWindow = window.approx === undefined ? { minid } : { minid, approx: window.approx };
  trimInput(resolved);
  return resolved;
}

/**
 * Keeps a declared list of streams trimmed (bus.md §5). Opt-in and separate from any consumer. The
 * policy lives in process memory only, never in the keyspace. Trims are idempotent, so a trim that
 * fails on one stream is logged and skipped, and the next tick applies it again.
 *
 * Do not declare a stream that has an archive: the archive driver trims it itself, after folding.
 *
 * @example
 * ```ts
 * const retention = new RetentionDriver(conn, [
 *   { queue: 'orders', name: 'audit', window: { minid: { ago: 7 * 86_400_000 } } },
 *   { queue: 'orders', name: 'clicks', window: { maxlen: 100_000 } },
 * ]).start();
 * ```
 */
export class RetentionDriver {
  /** The declared targets, frozen. */
  readonly targets: readonly RetentionTarget[];
  readonly #conn: Connection;
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #onError: (error: unknown, target: RetentionTarget) => void;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<unknown> = Promise.resolve();
  #running = false;

  /**
   * Checks the whole policy at once, so a malformed window is a configuration error here rather
   * than a surprise on some later tick.
   *
   * @throws InvalidArgumentError or InvalidNameError for a malformed target or option
   *   (UnknownOptionError for an unknown key).
   */
  constructor(conn: Connection, targets: readonly RetentionTarget[], options: RetentionOptions = {}) {
    checkRetentionOptions(options);
    const intervalMs = options.intervalMs ?? 1000;
    if (!Number.isSafeInteger(intervalMs) || intervalMs < 1) throw new InvalidArgumentError('intervalMs', 'must be a positive integer');
    this.#conn = conn;
    this.#intervalMs = intervalMs;
    this.#now = options.now ?? Date.now;
    this.#onError =
      options.onError ??
      ((error, target) => {
        console.warn(`@echo/bus retention: trim of ${target.queue}/${target.name} failed, retried next tick:`, error);
      });
    this.targets = Object.freeze(
      targets.map((target) => {
        checkRetentionTarget(target);
        assertQueueName(target.queue);
        assertStreamName(target.name);
        checkWindow(target.window);
        return Object.freeze({ ...target });
      }),
    );
  }

  /** True between {@link start} and {@link close}. */
  get running(): boolean {
    return this.#running;
  }

  /** True while the driver does not tick: before {@link start}, and from {@link close} until a new `start()`. */
  get closed(): boolean {
    return !this.#running;
  }

  /** Starts ticking every `intervalMs`; the first tick runs after one interval. Answers the driver. */
  start(): this {
    if (this.#running) return this;
    this.#running = true;
    this.#schedule();
    return this;
  }

  /** Stops ticking and waits for a tick in progress to finish; `start()` may run it again. Idempotent. */
  async close(): Promise<void> {
    this.#running = false;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#ticking;
  }

  /**
   * @deprecated Every handle closes with `close()`; this name is refused.
   * @throws RenamedError always, naming `close()`; nothing is stopped.
   */
  stop(): never {
    throw new RenamedError('RetentionDriver.stop()', 'RetentionDriver.close()', 'every handle closes with close()');
  }

  /**
   * Trims every target once, now, resolving relative windows against one reading of the clock. A
   * failed trim (or a clock reading that resolves to no valid instant) is logged and reported,
   * never thrown; an empty policy does nothing.
   */
  async tick(): Promise<RetentionOutcome[]> {
    const now = this.#now();
    const run = Promise.all(
      this.targets.map(async (target): Promise<RetentionOutcome> => {
        try {
          return { target, ok: true, removed: await trim(this.#conn, streamKey(target.queue, target.name), resolveWindow(target.window, now)) };
        } catch (error) {
          this.#onError(error, target);
          return { target, ok: false, error };
        }
      }),
    );
    this.#ticking = run;
    return run;
  }

  #schedule(): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      // tick() reports every failure itself and never rejects.
      void this.tick().finally(() => {
        if (this.#running) this.#schedule();
      });
    }, this.#intervalMs);
  }
}
