/**
 * A Redis Streams / JetStream user's app on @echo/bus: day one from the package README, then each
 * recipe of docs/guide/bus-recipes.md (streams without a queue, publish dedup, ordered
 * consumption, group pause/resume/reset, dead letters and redrive, batches, tails and the archive
 * watermark). Prints what happened and exits
 * 0 (1 if something did not happen).
 *
 * Run: REDIS_URL=redis://127.0.0.1:6379 pnpm exec tsx --conditions=@echo/source apps/streams-user/main.ts
 */
import { Bus } from '@echo/bus';
import { dayOne } from './day-one.js';
import { deadLetters } from './dead-letters.js';
import { groupControls } from './group-controls.js';
import { ordered } from './ordered.js';
import { publishDedup } from './publish-dedup.js';
import { say, url } from './shared.js';
import { tailsAndBatches } from './tails-and-batches.js';

// Streams without a queue: each stream is its own hashtag (a URL, or { host, port, ... }).
const bus = await Bus.open({ connect: url });
const ok = await (async () => {
  try {
    const dayOneOk = await dayOne(bus);
    await publishDedup(bus);
    await ordered(bus);
    await groupControls(bus);
    await deadLetters(bus);
    await tailsAndBatches(bus);
    return dayOneOk;
  } finally {
    await bus.close();
  }
})();
say(ok ? 'done' : 'something did not happen');
process.exitCode = ok ? 0 : 1;
