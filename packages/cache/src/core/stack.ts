import type { Connection } from '@echo/protocol/cache';
import { NoSuchCacheError } from '../base/errors.js';
import { L2Guard } from '../l2/guard.js';
import type { OutageOptions } from '../l2/breaker.js';
import { L2Reads } from '../l2/reads.js';
import { ScriptBatch } from '../l2/scripts.js';
import { Flights } from './single-flight.js';
import { L1, type L1Settings } from './l1.js';

/** How a stack is built: its L1's settings (name, bound, eviction, when a row is dead) and its L2's guard. */
export interface StackSettings<R> extends L1Settings<R> {
  /** The outage mode's settings; `null` makes the guard a pass-through. */
  readonly outage: Required<OutageOptions> | null;
  /** Unix ms (or a table's monotonic clock); the breaker reads it. */
  readonly now: () => number;
}

/**
 * The one cache stack both faces stand on (after bentocache's `CacheStack`, one object owning the
 * tiers): L1, L2 behind its guard (plain reads batched into one `MGET` per tick, scripts into one
 * pipeline per tick, the outage breaker), the loads running here and the stack's life. A face adds
 * its own rules on top (what may go into L1, its coherence source) and reads its verbs through the
 * one get-or-set handler; the stack knows neither face.
 *
 * @typeParam R an L1 row.
 * @typeParam F what a load answers its waiters.
 */
export class Stack<R extends object, F> {
  readonly name: string;
  readonly connection: Connection;
  readonly l1: L1<R>;
  /** Plain L2 reads, batched into one `MGET` per tick. */
  readonly reads: L2Reads;
  /** L2 scripts, batched into one pipeline per tick. */
  readonly scripts: ScriptBatch;
  readonly guard: L2Guard;
  readonly flights = new Flights<F>();
  /** Set once by the face's close; nothing answers or goes into L1 after it. */
  stopped = false;

  constructor(settings: StackSettings<R>, connection: Connection) {
    this.name = settings.name;
    this.connection = connection;
    this.l1 = new L1<R>(settings);
    this.reads = new L2Reads(connection);
    this.scripts = new ScriptBatch(connection);
    this.guard = new L2Guard(settings.outage, settings.now, {
      opened: () => this.l2Opened(),
      closed: () => this.l2Closed(),
      failed: (op, error) => this.l2Failed(op, error),
    });
  }

  /** The guard's breaker opened: L2 is believed down. A face that reports it overrides this. */
  protected l2Opened(): void {
    // A stack without an outage mode has nothing to report.
  }

  /** The breaker closed again after a successful probe. */
  protected l2Closed(): void {
    // As l2Opened.
  }

  /** One L2 call failed (timed out, errored or was refused by the open breaker). */
  protected l2Failed(_op: string, _error: unknown): void {
    // As l2Opened: the failure reaches the caller through the guard.
  }

  /** Throws once the stack is closed. */
  live(): void {
    if (this.stopped) throw new NoSuchCacheError(this.name);
  }
}
