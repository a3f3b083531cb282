/**
 * The connector under Redis Sentinel: it finds the primary through the sentinels, and after the
 * primary is SIGKILLed it follows the promoted replica, fences it, reloads its scripts and goes on;
 * callers meanwhile see typed errors only.
 */
import { startSentinel, waitFor, type SentinelGroup } from '@echo/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, ConnectionLostError, EchoError, FENCE_KEY, InvalidArgumentError, mintId, queueKeys, scripts, WIRE_VERSION } from './support.js';

let group: SentinelGroup;

beforeAll(async () => {
  group = await startSentinel({ downAfterMs: 1_000 });
}, 60_000);

afterAll(async () => {
  await group.stop();
});

describe('connecting through Sentinel', () => {
  it('refuses a malformed Sentinel configuration before any socket opens', async () => {
    await expect(Connection.connect({ sentinel: { sentinels: [], name: 'echo' } })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(Connection.connect({ sentinel: { sentinels: group.sentinelSeeds, name: '' } })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(Connection.connect({ sentinel: { sentinels: group.sentinelSeeds, name: 'echo' }, cluster: group.sentinelSeeds })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
  });

  it('close() leaves no socket on the sentinels, the failover watch included, so a process can exit', async () => {
    const admin = group.sentinelSeeds.map((s) => new Redis({ host: s.host, port: s.port, lazyConnect: true }));
    // Each sentinel's clients that are subscribed (the failover watch): `sub=` counts channels.
    const subscribed = async (): Promise<number> => {
      let n = 0;
      for (const sentinel of admin) n += String(await sentinel.call('CLIENT', 'LIST')).split('\n').filter((line) => /\bsub=[1-9]/.test(line)).length;
      return n;
    };
    try {
      const before = await subscribed();
      const conn = await Connection.connect({ sentinel: { sentinels: group.sentinelSeeds, name: group.masterName } });
      // The connection watches for +switch-master on the sentinels while it is open.
      await waitFor(async () => (await subscribed()) > before, { what: 'the failover watch subscribed' });
      await conn.close();
      // ioredis's QUIT left the watch's sentinel sockets open, reconnecting for ever once the sentinels went.
      await waitFor(async () => (await subscribed()) === before, { what: 'the failover watch unsubscribed' });
    } finally {
      for (const sentinel of admin) sentinel.disconnect();
    }
  });

  it('follows a SIGKILLed primary to its promoted replica, with typed errors only', async () => {
    const conn = await Connection.connect({ sentinel: { sentinels: group.sentinelSeeds, name: group.masterName }, strictKeys: true });
    const k = queueKeys('sentinel');
    const acked: string[] = [];
    const errors: unknown[] = [];
    const state = { running: true };
    const traffic = (async () => {
      while (state.running) {
        const id = mintId('JOB');
        try {
          await conn.run(scripts().enqueue, [k.job(id), k.pending, k.events, k.meta, k.journal], [id, 'p']);
          acked.push(id);
        } catch (error) {
          errors.push(error);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const failover = await group.failover({ timeoutMs: 20_000 });
      const healedAt = failover.healedAt;
      // Calls get through again on the promoted replica: 20 more acknowledgements after the heal.
      // Under load this failed 3 runs in 5: a failover announced while the reconnect was asking the
      // sentinels left ioredis ended for good (the gate now connects it again). The bound only has
      // to outlast a loaded machine.
      const atHeal = acked.length;
      await waitFor(() => acked.length >= atHeal + 20, { timeoutMs: 45_000, what: '20 enqueues acknowledged after the failover' });
      const resumedMs = Date.now() - healedAt;
      state.running = false;
      await traffic;
      expect(acked.length).toBeGreaterThanOrEqual(atHeal + 20);
      for (const error of errors) {
        expect(error).toBeInstanceOf(EchoError);
        expect(error).toBeInstanceOf(ConnectionLostError);
      }
      expect(conn.stats().reconnects).toBeGreaterThanOrEqual(1);
      const promoted = failover.promoted.client();
      try {
        // The fence was verified on the promoted node (the claim replicated before the kill).
        expect(await promoted.get(FENCE_KEY)).toBe(WIRE_VERSION);
      } finally {
        promoted.disconnect();
      }
      console.log(
        JSON.stringify({ failoverMs: healedAt - failover.killedAt, resumedMs, acked: acked.length, errors: errors.map((e) => (e as EchoError).code) }),
      );
    } finally {
      state.running = false;
      await traffic;
      await conn.close({ immediate: true });
    }
  }, 90_000);
});
