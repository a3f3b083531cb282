/**
 * A first app with `@echo/cache` (and the `@echo/protocol` connection it reads through): declare a
 * table, miss, fill, then hit. The release check typechecks it, bundles it and runs it against a
 * real server.
 */
import { Cache } from '@echo/cache';
import { Connection, mintId } from '@echo/protocol/extend';

const url = process.env.REDIS_URL;
if (url === undefined) throw new Error('REDIS_URL is required');

const connection = await Connection.connect(url);
const cache = await Cache.open({ connection });
let loads = 0;
const users = await cache.declare({
  name: `release-users-${process.pid}`,
  kind: 'USR',
  loader: (id) => {
    loads++;
    return Promise.resolve({ id, name: 'Ada' });
  },
  ttlMs: 5000,
});
const id = mintId('USR');
const miss = await users.fetch(id);
const hit = await users.fetch(id);
await users.invalidate(id);
await cache.close();
await connection.close();
console.log(JSON.stringify({ app: 'cache', first: miss.source, second: hit.source, loads }));
if (miss.source !== 'fill' || hit.source !== 'hit' || loads !== 1) process.exit(1);
