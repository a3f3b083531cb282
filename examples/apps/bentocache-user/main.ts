/**
 * A bentocache user's app on @echo/cache: day one from the package README, then each recipe of
 * docs/guide/cache-recipes.md (negative caching, answers not to cache, grace, reads without
 * loading, declared tables). Prints what happened, one line per fact, and exits by itself.
 *
 * Run: REDIS_URL=redis://127.0.0.1:6379 pnpm exec tsx --conditions=@echo/source apps/bentocache-user/main.ts
 */
import { Cache } from '@echo/cache';
import { dayOne } from './day-one.js';
import { grace } from './grace.js';
import { negativeCaching } from './negative-caching.js';
import { notCached } from './not-cached.js';
import { reads } from './reads.js';
import { Database, say, url } from './shared.js';
import { tables } from './tables.js';

const cache = await Cache.open({ connect: url });
const other = await Cache.open({ connect: url }); // a second cache in the same process, like a second app instance
try {
  await dayOne(cache, other, new Database());
  await negativeCaching(cache, new Database());
  await notCached(cache, new Database());
  await grace(cache, new Database());
  await reads(cache);
  await tables(cache, other);
} finally {
  await other.close();
  await cache.close();
}
say('done');
