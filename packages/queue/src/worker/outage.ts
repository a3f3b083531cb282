import { ConnectionLostError, OutageReport } from '@echo/protocol/queue';
import type { ClaimedJob } from '../core/job.js';

type OnError = (error: unknown, job?: ClaimedJob<unknown>) => void;

/** How often a probe asks whether calls get through again. */
const PROBE_EVERY_MS = 250;
/**
 * How long after the last absorbed error probes must keep succeeding before the outage counts as
 * over. A cluster keeps throwing stragglers for a while after a promotion (slot refreshes, cut-off
 * rounds resent with backoff up to 1 s); a shorter wait reports one failover as two. 2 s did so
 * on a machine running three CPU hogs beside the test (a `CLUSTERDOWN` 1.9 s after the last
 * straggler); the end report comes a second later for it, and its duration is unchanged (it ends
 * at the first probe through).
 */
const QUIET_MS = 3_000;
/**
 * An outage that has lasted this long (from the last reply heard) with no probe getting through is
 * reported while it lasts, once, besides its end. Short enough that a worker cut off for a long
 * stretch says so within seconds (the connector's default reply timeout is also 5 s, so a silent
 * link is reported a probe after it is declared lost); long enough that an ordinary failover
 * (measured 2-4.4 s from kill to a reachable primary) stays a single end report.
 */
const ONGOING_MS = 5_000;

interface Open {
  readonly startedAt: number;
  readonly first: ConnectionLostError;
  lastAt: number;
  absorbed: number;
  /** Whether the ongoing report went out (at most one per outage). */
  toldOngoing: boolean;
  /** When a probe first got through after the last absorbed error: the outage's end, once it holds. */
  recoveredAt: number | undefined;
}

/**
 * Folds the errors of an outage into one report. A failover makes every slot, lease extension,
 * wake read and settlement of a worker fail for seconds: reported one by one that is a screenful
 * per worker and per failover. The first error that did not reach a primary opens an outage; later
 * ones are counted; a probe of the queue's own slot closes it, and the hook then hears one
 * {@link OutageReport} with the duration and the count. An outage that lasts (no probe through for
 * a few seconds) is also reported while it lasts, once, with `ongoing` set: one outage is one end
 * report, preceded by at most one ongoing report. Every other error passes straight through.
 */
export class OutageFunnel {
  readonly #report: OnError;
  readonly #probe: () => Promise<unknown>;
  #open: Open | undefined;
  #timer: NodeJS.Timeout | undefined;
  #ongoingTimer: NodeJS.Timeout | undefined;

  constructor(report: OnError, probe: () => Promise<unknown>) {
    this.#report = report;
    this.#probe = probe;
  }

  /** The hook the worker calls instead of the user's. */
  readonly onError: OnError = (error, job) => {
    if (!(error instanceof ConnectionLostError)) {
      this.#report(error, job);
      return;
    }
    const now = Date.now();
    if (this.#open) {
      this.#open.absorbed++;
      this.#open.lastAt = now;
      this.#open.recoveredAt = undefined;
      return;
    }
    const open: Open = { startedAt: now, first: error, lastAt: now, absorbed: 1, toldOngoing: false, recoveredAt: undefined };
    this.#open = open;
    this.#schedule();
    // Dated like the report: from the last reply heard when the connector knows it (a silent link is
    // declared lost only after its reply timeout), so "a few seconds" counts from when replies stopped.
    const quietSince = Math.min(now, error.lastReplyAt ?? now);
    this.#watch(open, Math.max(0, quietSince + ONGOING_MS - now));
  };

  /** Stops probing; an outage still open is reported as ongoing, unless that was said already. */
  stop(): void {
    clearTimeout(this.#timer);
    clearTimeout(this.#ongoingTimer);
    const open = this.#open;
    this.#open = undefined;
    if (open && !open.toldOngoing) this.#report(new OutageReport(open.startedAt, Date.now() - open.startedAt, open.absorbed, true, { cause: open.first }));
  }

  #schedule(): void {
    this.#timer = setTimeout(() => void this.#check(), PROBE_EVERY_MS);
    this.#timer.unref();
  }

  /**
   * Reports `open` as ongoing after `inMs` unless a probe got through since its last error. Its own
   * timer, not the probe loop's: a probe on a dropped link may wait in the connector until the link
   * is back, and the report must not wait with it.
   */
  #watch(open: Open, inMs: number): void {
    this.#ongoingTimer = setTimeout(() => {
      if (this.#open !== open || open.toldOngoing) return;
      if (open.recoveredAt !== undefined) {
        this.#watch(open, PROBE_EVERY_MS);
        return;
      }
      open.toldOngoing = true;
      const now = Date.now();
      this.#report(new OutageReport(open.startedAt, now - open.startedAt, open.absorbed, true, { cause: open.first }));
    }, inMs);
    this.#ongoingTimer.unref();
  }

  async #check(): Promise<void> {
    const open = this.#open;
    if (!open) return;
    const reached = await this.#probe().then(
      () => true,
      () => false,
    );
    if (this.#open !== open) return;
    const now = Date.now();
    if (reached) open.recoveredAt ??= now;
    if (reached && now - open.lastAt >= QUIET_MS) {
      this.#open = undefined;
      this.#report(new OutageReport(open.startedAt, (open.recoveredAt ?? now) - open.startedAt, open.absorbed, false, { cause: open.first }));
      return;
    }
    this.#schedule();
  }
}
