import { ConnectionLostError } from '@echo/protocol/bus';
import type { StreamContext } from '../core/context.js';
import type { ConsumerLabels } from '../telemetry/hooks.js';
import type { ConsumerSettings } from './options.js';
import { sendAckIds, sendSettlements, type SettleCounts, type SettleTarget, type Settlement } from './settle.js';

const NO_SETTLEMENT: Promise<void> = Promise.resolve();

/**
 * One consumer's settlements on their way: each is sent without waiting, so the next read rides
 * right behind it on the same socket, and its replies are awaited before the next one, or by
 * close() before it cuts the socket.
 */
export class Settler {
  readonly #ctx: StreamContext;
  readonly #target: SettleTarget;
  readonly #stats: { acked: number; deadLettered: number };
  readonly #onError: (error: unknown) => void;
  readonly #stopping: () => boolean;
  #settled: Promise<void> = NO_SETTLEMENT;

  constructor(ctx: StreamContext, labels: ConsumerLabels, settings: ConsumerSettings, stats: { acked: number; deadLettered: number }, stopping: () => boolean) {
    this.#ctx = ctx;
    this.#target = {
      ...labels,
      key: ctx.key,
      minIdleMs: settings.minIdleMs,
      maxDeliveries: settings.maxDeliveries,
      backoff: settings.backoff,
      ordered: settings.orderBy !== undefined,
    };
    this.#stats = stats;
    this.#onError = settings.onError;
    this.#stopping = stopping;
  }

  /** The replies of the settlement last sent (it never rejects: a failure goes to `onError`). */
  get settled(): Promise<void> {
    return this.#settled;
  }

  /** Acks entries that all succeeded: one XACK of their ids. */
  acks(xids: readonly string[]): void {
    this.#track(sendAckIds(this.#ctx.conn, this.#target, xids));
  }

  /** Sends a settlement of mixed outcomes through the settle script. */
  send(settlements: readonly Settlement[]): void {
    this.#track(sendSettlements(this.#ctx.conn, this.#target, settlements));
  }

  #track(sent: Promise<SettleCounts>): void {
    this.#settled = sent.then(
      (counts) => {
        this.#stats.acked += counts.acked;
        this.#stats.deadLettered += counts.deadLettered;
      },
      (error: unknown) => {
        // The entries stay pending: a peer's claim, or this consumer's recovery, hands them over again.
        if (!this.#stopping() || !(error instanceof ConnectionLostError)) this.#onError(error);
      },
    );
  }
}
