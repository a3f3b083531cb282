/**
 * What a workload saw, one operation at a time, as the history checker reads it. Times are
 * `Date.now()` of the process that recorded the operation; run the workload's processes on one
 * host (or pass times from one clock) so that they compare.
 */
export type Operation =
  /** The server acknowledged an enqueue of `job`. */
  | { readonly type: 'enqueue'; readonly job: string; readonly at: number }
  /**
   * A handler started on `job` under the lease `token` (the claim's fencing token). `leaseUntil`,
   * when the recorder knows it (a queue handler's `ctx.leaseUntil()`), is the worker's bound of the
   * lease's end: its claim's send time plus the lease, which the server's deadline is no earlier
   * than. Without it the lease is taken to end `leaseMs` after the start, which overstates it by the
   * claim's round trip and the wait before the handler ran.
   */
  | { readonly type: 'start'; readonly job: string; readonly token: number; readonly at: number; readonly leaseMs: number; readonly worker: string; readonly leaseUntil?: number }
  /**
   * A settlement of `job` under `token`: `accepted` by the server, or refused (a stale or gone
   * lease). `sentAt` is when the handler finished, so no later than when it went out.
   */
  | {
      readonly type: 'settle';
      readonly job: string;
      readonly token: number;
      readonly outcome: 'completed' | 'dead' | 'retry';
      readonly accepted: boolean;
      readonly sentAt: number;
      readonly at: number;
      readonly worker: string;
    }
  /**
   * The handler of `job` under `token` returned or threw at `at`. Recorded before its settlement goes
   * out: a worker process killed between the server accepting that settlement and its report leaving
   * the process takes the settlement's record along, but not this one.
   */
  | { readonly type: 'handler-end'; readonly job: string; readonly token: number; readonly at: number; readonly worker: string }
  /** `job` was removed (acknowledged), which ends it. */
  | { readonly type: 'removed'; readonly job: string; readonly at: number }
  /** The state the server holds for `job` when the run ended (`completed`, `dead`, `waiting`, `missing`…). */
  | { readonly type: 'final'; readonly job: string; readonly state: string; readonly at: number }
  /** A cache write of `value` (increasing per key) to `key`, sent at `at`, acknowledged at `ackAt`. */
  | { readonly type: 'cache-write'; readonly key: string; readonly value: number; readonly at: number; readonly ackAt: number }
  /** A cache read of `key`, sent at `at`, that answered `value` (`null`: no value). */
  | { readonly type: 'cache-read'; readonly key: string; readonly value: number | null; readonly at: number; readonly reader: string }
  /** The server acknowledged an append of bus entry `entry`. */
  | { readonly type: 'bus-append'; readonly entry: string; readonly at: number }
  /** Consumer group `group` acknowledged `entry`. */
  | { readonly type: 'bus-ack'; readonly entry: string; readonly group: string; readonly at: number }
  /** `entry` sits in the dead letters of `group`. */
  | { readonly type: 'bus-dead'; readonly entry: string; readonly group: string; readonly at: number };

/** An {@link Operation} with its place in the history. */
export type Recorded = Operation & { readonly seq: number };

/**
 * An append-only log of what a workload saw. Recording is synchronous and cheap (one array push),
 * so it can sit on hot paths; give every process of a workload its own and merge them with
 * {@link History.merge} (ordered by time) before checking.
 */
export class History {
  readonly #ops: Recorded[] = [];

  /** Appends `op`. */
  record(op: Operation): void {
    this.#ops.push({ ...op, seq: this.#ops.length });
  }

  /** Everything recorded, in recording order. */
  get operations(): readonly Recorded[] {
    return this.#ops;
  }

  /** Operations recorded so far. */
  get size(): number {
    return this.#ops.length;
  }

  /** One history from several (for example one per process), ordered by time, renumbered. */
  static merge(parts: readonly (readonly Operation[])[]): History {
    const merged = new History();
    const all = parts.flat().map((op, i) => ({ op, i }));
    all.sort((a, b) => a.op.at - b.op.at || a.i - b.i);
    for (const { op } of all) {
      const { seq: _seq, ...plain } = op as Operation & { seq?: number };
      merged.record(plain);
    }
    return merged;
  }
}
