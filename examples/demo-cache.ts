/**
 * The cache part of the demo: a keyed namespace read by two caches on two connections (as two
 * processes would), one load for a herd of misses across both, a write the other cache sees, and a
 * delete by tag; then a declared table of branded ids read through (the dashboard lists both).
 */
import { Cache } from '@echo/cache';
import type { Connection } from '@echo/protocol';
import { mintId } from '@echo/protocol/extend';

interface Customer {
  readonly name: string;
  readonly tier: 'gold' | 'silver';
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function cacheDemo(conn: Connection, names: { readonly namespace: string; readonly table: string }, keep: boolean): Promise<void> {
  const { namespace, table } = names;
  const peerConn = await conn.duplicate();
  // Each is closed on the way out, a failure midway included: their coherence reads hold the process.
  const here = await Cache.open({ connection: conn });
  const peer = await Cache.open({ connection: peerConn }); // another process, in effect: its own L1 and its own connection
  try {
    const customers = await here.namespace<Customer>({ name: namespace, ttlMs: 60_000, graceMs: 3_600_000 });
    const peerCustomers = await peer.namespace<Customer>({ name: namespace, ttlMs: 60_000, graceMs: 3_600_000 });

    let loads = 0;
    const load = async (): Promise<Customer> => {
      loads++;
      await sleep(25); // a slow database
      return { name: 'Ada', tier: 'gold' };
    };
    const herd = await Promise.all(
      [customers, peerCustomers].flatMap((ns) => Array.from({ length: 50 }, () => ns.getOrSet('customer:42', load, { tags: ['tier:gold'] }))),
    );
    const again = await customers.getOrSetEntry('customer:42', load);

    await customers.set('customer:42', { name: 'Ada', tier: 'silver' }, { tags: ['tier:silver'] });
    const wrote = Date.now();
    let seen = await peerCustomers.get('customer:42');
    while (seen?.tier !== 'silver' && Date.now() - wrote < 5_000) {
      await sleep(5);
      seen = await peerCustomers.get('customer:42');
    }
    const seenAfterMs = Date.now() - wrote;
    const dropped = await customers.deleteByTag('tier:silver');
    const deleted = Date.now();
    let gone = (await peerCustomers.get('customer:42')) === undefined;
    while (!gone && Date.now() - deleted < 5_000) {
      await sleep(5);
      gone = (await peerCustomers.get('customer:42')) === undefined;
    }
    // Something to look at with --keep: a few entries under tags (the dashboard lists both).
    await customers.set('customer:7', { name: 'Grace', tier: 'gold' }, { tags: ['tier:gold', 'region:eu'] });
    await customers.set('customer:8', { name: 'Linus', tier: 'silver' }, { tags: ['tier:silver', 'region:eu'] });
    await customers.set('customer:9', { name: 'Barbara', tier: 'gold' }, { tags: ['tier:gold', 'region:us'] });

    console.log('\nCache (keyed namespace)');
    console.log(`  single flight 100 concurrent getOrSet misses from two caches -> ${loads} load, all saw "${herd[0]?.name ?? ''}"`);
    console.log(`  next read     source ${again.source}: served from this process's L1, no server call`);
    console.log(`  coherence     a set in one cache reached the other's L1 within ${Math.max(1, seenAfterMs)} ms (tier ${seen?.tier ?? '-'})`);
    console.log(`  tags          deleteByTag('tier:silver') dropped ${dropped} entry; gone from the other cache too: ${gone}`);

    // A declared table: rows by branded id, each loaded once and then answered by L1; the rows stay
    // in L2 for the dashboard's cache tables (found by their keys, so a separate process lists them).
    let accountLoads = 0;
    const accounts = await here.declare({ name: table, kind: 'ACC', ttlMs: 3_600_000, loader: (id) => {
      accountLoads++;
      return { id, plan: 'pro' };
    } });
    const ids = Array.from({ length: 5 }, () => mintId('ACC'));
    const sources = new Map<string, number>();
    for (const id of [...ids, ...ids]) {
      const { source } = await accounts.fetch(id);
      sources.set(source, (sources.get(source) ?? 0) + 1);
    }
    console.log(`  table         ${ids.length} ids read twice: ${[...sources].map(([source, n]) => `${String(n)} ${source}`).join(', ')} (${accountLoads} loads)`);

    if (!keep) {
      await customers.clear();
      for (const id of ids) await accounts.invalidate(id);
    }
  } finally {
    await here.close();
    await peer.close();
    await peerConn.close();
  }
}
