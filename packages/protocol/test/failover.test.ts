import { startCluster, uniqueName, type RedisCluster, type RedisServer } from '@echo/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { Connection, ConnectionLostError, EchoError, mintId, queueKeys, scripts, slot } from './support.js';

// A failover here: cluster-node-timeout 2000 ms, then an election; about 4 s from kill to healed.
const NODE_TIMEOUT_MS = 2_000;

let cluster: RedisCluster | undefined;
let conn: Connection | undefined;

afterEach(async () => {
  await conn?.close({ immediate: true });
  await cluster?.stop();
  conn = undefined;
  cluster = undefined;
});

async function formed(): Promise<{ cluster: RedisCluster; conn: Connection }> {
  cluster = await startCluster({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: NODE_TIMEOUT_MS });
  // A short wait limit: a connector that closed its gate for good fails calls within 5 s, not 30.
  conn = await Connection.connect({ cluster: cluster.seeds, reconnectWaitMs: 5_000, strictKeys: true });
  return { cluster, conn };
}

/** `count` queue names whose keys live on `master`. */
async function queuesOn(c: RedisCluster, master: RedisServer, count: number): Promise<string[]> {
  const out: string[] = [];
  while (out.length < count) {
    const q = uniqueName('fo');
    if ((await c.masterOf(slot(queueKeys(q).pending))) === master) out.push(q);
  }
  return out;
}

function enqueue(c: Connection, q: string): Promise<unknown> {
  const k = queueKeys(q);
  const id = mintId('JOB');
  return c.run(scripts().enqueue, [k.job(id), k.pending, k.events, k.meta, k.journal], [id, 'p']);
}

/** Enqueues on each queue in a loop, noting what callers see; stops when told. */
class Traffic {
  readonly errors: Error[] = [];
  readonly lastOk = new Map<string, number>();
  readonly lastError = new Map<string, number>();
  #running = true;
  readonly #loops: Promise<void>[];

  constructor(c: Connection, queues: readonly string[]) {
    this.#loops = queues.map(async (q) => {
      while (this.#running) {
        try {
          await enqueue(c, q);
          this.lastOk.set(q, Date.now());
        } catch (error) {
          this.errors.push(error as Error);
          this.lastError.set(q, Date.now());
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    });
  }

  byClass(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const e of this.errors) out[e.constructor.name] = (out[e.constructor.name] ?? 0) + 1;
    return out;
  }

  /** Resolves once every queue in `queues` has succeeded after `since`. */
  async servedAfter(queues: readonly string[], since: number, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (!queues.every((q) => (this.lastOk.get(q) ?? 0) > since)) {
      if (Date.now() > deadline) throw new Error(`queues not served within ${timeoutMs} ms after ${since}: ${JSON.stringify(this.byClass())}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return Date.now() - since;
  }

  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#loops);
  }
}

describe('the connector through a cluster failover', () => {
  it('gives callers only typed errors while a master fails over, and serves its slots again after', async () => {
    const { cluster: c, conn: cn } = await formed();
    const victim = c.masters[0] as RedisServer;
    const hit = await queuesOn(c, victim, 3);
    const spared = await queuesOn(c, c.masters[1] as RedisServer, 3);
    const traffic = new Traffic(cn, [...hit, ...spared]);
    await traffic.servedAfter([...hit, ...spared], 0, 5_000);

    const failover = await c.failover(victim, { timeoutMs: 20_000 });
    const recoveredIn = await traffic.servedAfter(hit, failover.healedAt, 15_000);
    await traffic.stop();

    console.log(`failover ${failover.healedAt - failover.killedAt} ms; hit queues served ${recoveredIn} ms after heal; errors`, traffic.byClass());
    for (const error of traffic.errors) {
      expect(error).toBeInstanceOf(EchoError);
      expect(error).toBeInstanceOf(ConnectionLostError);
    }
    // Which typed error a caller meets (ClusterUnavailableError while the slots are unserved,
    // ConnectionLostError on the killed socket) depends on when its call met the failover: a loaded
    // run once sent none in the unserved window, so the class is logged above, not asserted.
    // The other masters' queues kept working the whole time.
    for (const q of spared) expect(traffic.lastError.has(q)).toBe(false);
    expect(cn.status).toBe('ready');
  }, 60_000);

  it('cannot be wedged by a script load that meets the dead master', async () => {
    const { cluster: c, conn: cn } = await formed();
    const victim = c.masters[0] as RedisServer;
    const live = c.masters[1] as RedisServer;
    const hit = await queuesOn(c, victim, 3);
    const [flushed] = await queuesOn(c, live, 1);
    const traffic = new Traffic(cn, hit);
    await traffic.servedAfter(hit, 0, 5_000);

    const killedAt = Date.now();
    await victim.kill('SIGKILL');
    // Traffic keeps the client retrying the dead node, so its pool still lists it as a master.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const direct = live.client();
    try {
      await direct.call('SCRIPT', 'FLUSH');
    } finally {
      direct.disconnect();
    }
    const loads = cn.stats().scriptLoads;
    // NOSCRIPT on the live master: the load meets the dead master too, and must not stop anything.
    expect(await enqueue(cn, flushed as string)).toBe(1);
    expect(cn.stats().scriptLoads).toBeGreaterThan(loads);
    expect(cn.status).toBe('ready');

    await c.awaitHealthy({ timeoutMs: 20_000 });
    const healedAt = Date.now();
    const recoveredIn = await traffic.servedAfter(hit, healedAt, 5_000);
    expect(await enqueue(cn, flushed as string)).toBe(1);
    await traffic.stop();
    console.log(`wedge attempt: failover ${healedAt - killedAt} ms; served ${recoveredIn} ms after heal; errors`, traffic.byClass());
    for (const error of traffic.errors) expect(error).toBeInstanceOf(ConnectionLostError);
    expect(cn.status).toBe('ready');
  }, 60_000);
});
