/** The cache part of the demo: a declared table, single flight over a herd of misses, L1 hits. */
import { Cache } from '@echo/cache';
import { mintId, type Connection } from '@echo/protocol';

interface Customer {
  readonly name: string;
  readonly tier: 'gold' | 'silver';
}

export async function cacheDemo(conn: Connection, table: string): Promise<void> {
  const cache = await Cache.open({ connection: conn });
  let loads = 0;
  const customers = await cache.declare({
    name: table,
    kind: 'CUS',
    ttlMs: 30_000,
    loader: async (id): Promise<Customer> => {
      loads++;
      await new Promise((r) => setTimeout(r, 25)); // a slow database
      return { name: `customer ${id.slice(-4)}`, tier: 'gold' };
    },
  });
  const id = mintId('CUS');
  const herd = await Promise.all(Array.from({ length: 50 }, () => customers.fetch(id)));
  const again = await customers.fetch(id);
  const stats = customers.stats();
  await cache.close();

  console.log('\nCache');
  console.log(`  single flight 50 concurrent misses -> ${loads} loader call (${stats.coalesced} coalesced), all saw "${herd[0]?.value.name ?? ''}"`);
  console.log(`  next read     source ${again.source}; L2 holds the framed value for other processes`);
}
