/**
 * A BullMQ user's app on @echo/queue: day one from the package README, then each recipe of
 * docs/guide/queue-recipes.md (schedulers, retention, deadlines, dedup modes, attempt history and
 * logs, flows, lanes and batches). Each chapter uses a queue of its own. Prints what happened, one
 * line per fact, and exits by itself.
 *
 * Run: REDIS_URL=redis://127.0.0.1:6379 pnpm exec tsx --conditions=@echo/source apps/bullmq-user/main.ts
 */
import { attemptHistory } from './attempt-history.js';
import { dayOne } from './day-one.js';
import { deadlines } from './deadlines.js';
import { dedupModes } from './dedup-modes.js';
import { flows } from './flows.js';
import { lanes } from './lanes.js';
import { retention } from './retention.js';
import { schedulers } from './schedulers.js';

await dayOne();
await schedulers();
await retention();
await deadlines();
await dedupModes();
await attemptHistory();
await flows();
await lanes();
