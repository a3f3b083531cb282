import type { SubscriptionSink } from './subscription.js';

/**
 * The channels one connection keeps subscribed, and which subscriptions hold each. Its keys are
 * what a reconnect re-issues; a channel leaves the server only when its last holder lets go.
 */
export class ChannelRegistry {
  readonly #holders = new Map<string, Set<SubscriptionSink>>();

  /** How many distinct channels are held. */
  get size(): number {
    return this.#holders.size;
  }

  /** Every held channel. */
  channels(): string[] {
    return [...this.#holders.keys()];
  }

  /** Records `sink` as a holder of each of its channels. */
  hold(sink: SubscriptionSink): void {
    for (const channel of sink.channels) {
      let holders = this.#holders.get(channel);
      if (holders === undefined) this.#holders.set(channel, (holders = new Set()));
      holders.add(sink);
    }
  }

  /** Drops `sink` from every channel it held; answers the channels nobody holds any more. */
  release(sink: SubscriptionSink): string[] {
    const orphaned: string[] = [];
    for (const channel of sink.channels) {
      const holders = this.#holders.get(channel);
      if (!holders?.delete(sink) || holders.size > 0) continue;
      this.#holders.delete(channel);
      orphaned.push(channel);
    }
    return orphaned;
  }

  /** The distinct holders of `channels`. */
  holders(channels: readonly string[]): Set<SubscriptionSink> {
    const sinks = new Set<SubscriptionSink>();
    for (const channel of channels) for (const sink of this.#holders.get(channel) ?? []) sinks.add(sink);
    return sinks;
  }

  /** Hands one message to every holder of its channel. */
  deliver(channel: string, payload: unknown): void {
    const holders = this.#holders.get(channel);
    if (holders === undefined) return;
    const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(typeof payload === 'string' ? payload : '');
    for (const sink of [...holders]) sink.message(channel, bytes);
  }

  /** Forgets every channel and ends every holder (the connection closed). */
  endAll(): void {
    const sinks = this.holders(this.channels());
    this.#holders.clear();
    for (const sink of sinks) sink.end();
  }
}
