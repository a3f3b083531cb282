/**
 * Recipe "Dedup modes" (docs/guide/queue-recipes.md): a `dedupId` turns away a second admission
 * while its key holds; `dedupMode` says what the turned-away one still does to the kept job:
 * 'extend' restarts the window, 'replace' gives the waiting job the new payload, 'debounce' both
 * and moves a scheduled job to the new delay (BullMQ's deduplication: { extend, replace }).
 */
import { Queue, Worker } from '@echo/queue';
import { queueName, say, sleep, url } from './shared.js';

export async function dedupModes(): Promise<void> {
  const search = await Queue.open<{ query: string }>(queueName('search'), { connect: url });
  const events = await search.events();
  const heard: string[] = [];
  events.on('deduplicated', (event) => heard.push(`${event.fields.mode ?? 'plain'}${event.fields.replaced === '1' ? '+replaced' : ''}`));

  // debounce: search as you type; only the last query runs, once the typing stops.
  const typing = { dedupId: 'user-7', dedupTtlMs: 200, dedupMode: 'debounce', delayMs: 200 } as const;
  const first = await search.enqueue({ query: 'e' }, typing);
  const answers: string[] = [];
  for (const query of ['ec', 'ech', 'echo']) answers.push(`${query} ${(await search.enqueue({ query }, typing)).status}`);
  say(`debounce: ${answers.join(', ')}; the key holds ${String((await search.getDedupJobId('user-7')) === first.id)}`);

  // replace: a waiting job takes the newest payload (a cart recomputed on every change).
  const cart = await search.enqueue({ query: 'cart v1' }, { dedupId: 'cart-9', dedupMode: 'replace' });
  await search.enqueue({ query: 'cart v2' }, { dedupId: 'cart-9', dedupMode: 'replace' });

  // extend: every turned-away admission restarts the window, so a steady trickle keeps one job.
  const window = { dedupId: 'report-1', dedupTtlMs: 3_000, dedupMode: 'extend' } as const;
  await search.enqueue({ query: 'report' }, window);
  await sleep(2_000);
  await search.enqueue({ query: 'report' }, window); // restarts the 3 s window
  await sleep(2_000); // 4 s after the first: past its window, not past the restarted one
  say(`extend: a third add 4 s after the first is ${(await search.enqueue({ query: 'report' }, window)).status}`);

  const ran: string[] = [];
  const worker = await Worker.start(search, (job) => {
    ran.push(job.payload.query);
    return `searched "${job.payload.query}"`;
  });
  say(`debounce: ${String((await search.waitUntilFinished(first.id, { timeoutMs: 10_000 })).result)}`);
  say(`replace: ${String((await search.waitUntilFinished(cart.id, { timeoutMs: 10_000 })).result)}`);
  while (ran.length < 3) await sleep(20);
  say(`dedup modes: jobs run ${String(ran.length)} (${[...ran].sort().join(', ')}); deduplicated events ${[...heard].sort().join(', ')}`);
  await worker.close();
  await events.close();
  await search.close();
}
