import { startCluster, uniqueName, waitFor, type RedisCluster } from '@echo/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from './support.js';

let cluster: RedisCluster;
let conn: Connection;
let admins: Redis[];

beforeAll(async () => {
  cluster = await startCluster({ masters: 3 });
  conn = await Connection.connect({ cluster: cluster.seeds });
  admins = cluster.masters.map((node) => new Redis({ host: node.host, port: node.port, lazyConnect: false }));
}, 60_000);
afterAll(async () => {
  await conn.close();
  for (const admin of admins) admin.disconnect();
  await cluster.stop();
});

/** A pub/sub client connection named `name` on one node, as `CLIENT LIST TYPE pubsub` shows it. */
interface Subscriber {
  readonly node: number;
  readonly id: string;
  readonly channels: number;
}

/** Every pub/sub connection (or, with `all`, every connection) named `name`, over every master. */
async function subscribersNamed(name: string, all = false): Promise<Subscriber[]> {
  const found: Subscriber[] = [];
  for (const [node, admin] of admins.entries()) {
    const list = String(await (all ? admin.call('CLIENT', 'LIST') : admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub')));
    for (const line of list.split('\n')) {
      if (!new RegExp(` name=\\S*${name}\\S* `).test(line)) continue;
      const id = /^id=(\d+)/.exec(line)?.[1];
      if (id !== undefined) found.push({ node, id, channels: Number(/ sub=(\d+)/.exec(line)?.[1] ?? 0) });
    }
  }
  return found;
}

describe('cluster subscriptions owned by the connector', () => {
  async function killDrill(everySocket: boolean): Promise<void> {
    const name = uniqueName('csub');
    const channel = `${name}.ch`;
    const own = await conn.duplicate(name);
    const got: string[] = [];
    try {
      const subscription = await own.subscribe([channel], { onMessage: ({ payload }) => got.push(payload) });
      // Published through one node, so the cluster bus carries every message to the subscriber in order.
      const publisher = admins[0] as Redis;
      await publisher.publish(channel, 'm0');
      await waitFor(() => got.length === 1, { what: 'the first message' });

      for (let kill = 1; kill <= 20; kill++) {
        const before = await subscribersNamed(name);
        expect(before, `before kill ${kill}`).toHaveLength(1);
        const victim = before[0] as Subscriber;
        const victims = everySocket ? await subscribersNamed(name, true) : [victim];
        for (const v of victims) await (admins[v.node] as Redis).call('CLIENT', 'KILL', 'ID', v.id);
        await waitFor(
          async () => {
            const now = await subscribersNamed(name);
            return now.some((s) => (s.node !== victim.node || s.id !== victim.id) && s.channels >= 1);
          },
          { what: `a fresh subscriber after kill ${kill}`, timeoutMs: 10_000 },
        );
        const message = `m${kill}`;
        await publisher.publish(channel, message);
        await waitFor(() => got.includes(message), { what: `${message} after kill ${kill}`, timeoutMs: 5000 });
        const after = await subscribersNamed(name);
        expect(after, `after kill ${kill}`).toHaveLength(1);
      }
      // A marker behind everything: by the time it arrives, any duplicate before it has too.
      await publisher.publish(channel, 'end');
      await waitFor(() => got.includes('end'), { what: 'the end marker' });
      expect(got).toEqual([...Array.from({ length: 21 }, (_, i) => `m${i}`), 'end']);
      expect(subscription.confirmations).toBe(21);
    } finally {
      await own.close();
    }
    await waitFor(async () => (await subscribersNamed(name)).length === 0, { what: 'the subscriber to close with its connection' });
  }

  it('survives 20 CLIENT KILLs of its subscriber: one subscriber connection, every fresh message delivered exactly once', () => killDrill(false), 120_000);

  it('survives 20 kills of every socket of its connection (subscriber and node connections alike)', () => killDrill(true), 120_000);
});

describe('cluster subscriptions when the subscriber node dies', () => {
  it('moves to another master when its node is SIGKILLed, and delivers there', async () => {
    const withReplicas = await startCluster({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 2_000 });
    const c = await Connection.connect({ cluster: withReplicas.seeds, reconnectWaitMs: 10_000 });
    const name = uniqueName('cfo');
    const channel = `${name}.ch`;
    const got: string[] = [];
    const direct = (port: number): Redis => new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1, retryStrategy: () => null });
    try {
      const own = await c.duplicate(name);
      const subscription = await own.subscribe([channel], { onMessage: ({ payload }) => got.push(payload) });
      /** The running node holding our subscriber, if any. */
      const holder = async (): Promise<(typeof withReplicas.nodes)[number] | undefined> => {
        for (const node of withReplicas.nodes) {
          if (!node.running) continue;
          const admin = direct(node.port);
          try {
            const list = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub'));
            if (list.split('\n').some((line) => line.includes(` name=${name} `) && !line.includes(' sub=0 '))) return node;
          } finally {
            admin.disconnect();
          }
        }
        return undefined;
      };
      const first = await holder();
      expect(first).toBeDefined();
      await withReplicas.failover(first as (typeof withReplicas.nodes)[number]);
      await waitFor(async () => (await holder()) !== undefined, { what: 'a subscriber on a surviving node', timeoutMs: 15_000 });
      expect(await holder()).not.toBe(first);
      const publisher = direct((await holder())?.port ?? 0);
      try {
        await publisher.publish(channel, 'after');
      } finally {
        publisher.disconnect();
      }
      await waitFor(() => got.includes('after'), { what: 'delivery after the failover' });
      expect(subscription.confirmations).toBe(2);
      await own.close();
    } finally {
      await c.close({ immediate: true });
      await withReplicas.stop();
    }
  }, 90_000);
});
