import { ConnectionLostError, OutageReport } from '@echo/protocol';
import type { ClaimedJob } from '../job.js';

type OnError = (error: unknown, job?: ClaimedJob<unknown>) => void;

/** How often a probe asks whether calls get through again. */
const PROBE_EVERY_MS = 250;
/**
 * How long after the last absorbed error probes must keep succeeding before the outage counts as
 * over. A cluster keeps throwing stragglers for a while after a promotion (slot refreshes, cut-off
 * rounds resent with backoff up to 1 s); a shorter wait reports one failover as two.
 */
const QUIET_MS = 2_000;
/** An outage this long is reported while it lasts, once, besides its end. */
const LONG_MS = 30_000;

interface Open {
  readonly startedAt: number;
  readonly first: ConnectionLostError;
  lastAt: number;
  absorbed: number;
  toldLong: boolean;
  /** When a probe first got through after the last absorbed error: the outage's end, once it holds. */
  recoveredAt: number | undefined;
}

/**
 * Folds the errors of an outage into one report. A failover makes every slot, lease extension,
 * wake read and settlement of a worker fail for seconds: reported one by one that is a screenful
 * per worker and per failover. The first error that did not reach a primary opens an outage; later
 * ones are counted; a probe of the queue's own slot closes it, and the hook then hears one
 * {@link OutageReport} with the duration and the count. Every other error passes straight through.
 */
export class OutageFunnel {
  readonly #report: OnError;
  readonly #probe: () => Promise<unknown>;
  #open: Open | undefined;
  #timer: NodeJS.Timeout | undefined;

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
    this.#open = { startedAt: now, first: error, lastAt: now, absorbed: 1, toldLong: false, recoveredAt: undefined };
    this.#schedule();
  };

  /** Stops probing; an outage still open is reported as ongoing. */
  stop(): void {
    clearTimeout(this.#timer);
    const open = this.#open;
    this.#open = undefined;
    if (open) this.#report(new OutageReport(open.startedAt, Date.now() - open.startedAt, open.absorbed, true, { cause: open.first }));
  }

  #schedule(): void {
    this.#timer = setTimeout(() => void this.#check(), PROBE_EVERY_MS);
    this.#timer.unref();
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
    if (!open.toldLong && now - open.startedAt >= LONG_MS) {
      open.toldLong = true;
      this.#report(new OutageReport(open.startedAt, now - open.startedAt, open.absorbed, true, { cause: open.first }));
    }
    this.#schedule();
  }
}
