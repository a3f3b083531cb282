/**
 * Recipe "Declared tables" (docs/guide/cache-recipes.md): the second form, a table of rows keyed by
 * branded ids with a loader and a coherence lane; a writer puts a row and tells the other
 * processes, whose copies step to the new version.
 */
import type { Cache } from '@echo/cache';
import { parseId } from '@echo/protocol';
import { run, say, waitFor } from './shared.js';

interface Account {
  readonly name: string;
  readonly plan: 'free' | 'pro';
}

export async function tables(cache: Cache, other: Cache): Promise<void> {
  const rows = new Map<string, Account>([['USR0SXg7GJtRgm', { name: 'Ada', plan: 'free' }]]);
  let loads = 0;
  const spec = {
    name: `accounts-${run}`,
    kind: 'USR',
    loader: (id: string): Account => {
      loads++;
      const row = rows.get(id);
      if (row === undefined) throw new Error(`no account ${id}`); // a table has no absent rows
      return row;
    },
    ttlMs: 60_000,
    coherence: 'broadcast',
  } as const;
  const accounts = await cache.declare<Account, 'USR'>(spec);
  const elsewhere = await other.declare<Account, 'USR'>(spec); // the same table in a second process
  const ada = parseId('USR0SXg7GJtRgm', 'USR'); // an id your system minted

  const first = await accounts.fetch(ada);
  const second = await accounts.fetch(ada);
  say(`tables: fetch ${first.source} then ${second.source}, ${first.value.name} on ${first.value.plan}, loads=${String(loads)}`);
  say(`tables: the other process reads ${(await elsewhere.fetch(ada)).source}`);

  // A writer: L2 and its own L1, then a broadcast so every other L1 drops its older copy.
  const version = await accounts.put(ada, { name: 'Ada', plan: 'pro' });
  await accounts.broadcast(ada, version);
  await waitFor(async () => (await elsewhere.fetch(ada)).value.plan === 'pro');
  say(`tables: after put and broadcast the other process reads plan ${(await elsewhere.fetch(ada)).value.plan}; loads=${String(loads)}`);
}
