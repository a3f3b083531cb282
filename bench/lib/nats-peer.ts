import { AckPolicy, DeliverPolicy, StorageType, connect, type JetStreamClient, type JetStreamManager, type NatsConnection } from 'nats';

/**
 * NATS JetStream as a peer: a stream of its own (uniquely named, memory storage, deleted at the
 * end), async publish in windows, and a durable pull consumer with explicit ack.
 */
export class NatsPeer {
  readonly #nc: NatsConnection;
  readonly #js: JetStreamClient;
  readonly #jsm: JetStreamManager;
  readonly #streams = new Set<string>();

  private constructor(nc: NatsConnection, js: JetStreamClient, jsm: JetStreamManager) {
    this.#nc = nc;
    this.#js = js;
    this.#jsm = jsm;
  }

  /** Connects, or answers `undefined` (with the reason on stderr) when no server answers. */
  static async open(servers: string): Promise<NatsPeer | undefined> {
    try {
      const nc = await connect({ servers, timeout: 2000 });
      return new NatsPeer(nc, nc.jetstream(), await nc.jetstreamManager());
    } catch (error) {
      process.stderr.write(`NATS at ${servers} is not usable, its rows are skipped: ${(error as Error).message}\n`);
      return undefined;
    }
  }

  /** A fresh stream; its subject is its name. */
  async createStream(name: string): Promise<void> {
    await this.#jsm.streams.add({ name, subjects: [name], storage: StorageType.Memory });
    this.#streams.add(name);
  }

  async deleteStream(name: string): Promise<void> {
    if (this.#streams.delete(name)) await this.#jsm.streams.delete(name);
  }

  /** Publishes `n` copies of `payload`, `window` awaited together at a time. */
  async publish(name: string, n: number, payload: Uint8Array, window: number): Promise<void> {
    for (let done = 0; done < n; done += window) {
      const size = Math.min(window, n - done);
      const acks: Promise<unknown>[] = [];
      for (let i = 0; i < size; i++) acks.push(this.#js.publish(name, payload));
      await Promise.all(acks);
    }
  }

  /** Bytes the stream holds, from its info. */
  async bytes(name: string): Promise<number> {
    return (await this.#jsm.streams.info(name)).state.bytes;
  }

  /**
   * Consumes `n` messages with a durable pull consumer, `batch` per pull, acking each explicitly;
   * resolves once the server holds no ack pending.
   */
  async consume(name: string, n: number, batch: number): Promise<void> {
    const durable = 'bench';
    await this.#jsm.consumers.add(name, { durable_name: durable, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All });
    const consumer = await this.#js.consumers.get(name, durable);
    const messages = await consumer.consume({ max_messages: batch });
    let seen = 0;
    for await (const m of messages) {
      m.ack();
      if (++seen === n) break;
    }
    messages.stop();
    for (;;) {
      const info = await this.#jsm.consumers.info(name, durable);
      if (info.num_ack_pending === 0 && info.num_pending === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  async close(): Promise<void> {
    for (const name of [...this.#streams]) await this.deleteStream(name).catch(() => undefined);
    await this.#nc.drain();
  }
}
