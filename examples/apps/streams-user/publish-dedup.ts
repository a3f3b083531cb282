/**
 * Recipe "Publish deduplication" (docs/guide/bus-recipes.md): a producer that retries gives each
 * message an id of its own (`msgId`); within the stream's dedup window a second append of it
 * writes nothing and answers the first one's id.
 */
import type { StreamBus } from '@echo/bus';
import { say, streamName } from './shared.js';

export async function publishDedup(bus: StreamBus): Promise<void> {
  const payments = bus.stream(streamName('payments'), { dedupWindowMs: 120_000 });
  const first = await payments.append({ order: '42', cents: '1299' }, { msgId: 'order-42' });
  const retry = await payments.append({ order: '42', cents: '1299' }, { msgId: 'order-42' }); // the producer timed out and retried
  say(`msgId: first duplicate=${String(first.duplicate)}, retry duplicate=${String(retry.duplicate)}, same id ${String(retry.id === first.id)}`);
  const batch = await payments.appendBatch([{ order: '43' }, { order: '43' }, { order: '44' }], { msgIds: ['order-43', 'order-43', 'order-44'] });
  say(`msgIds in a batch: duplicates ${batch.map((r) => String(r.duplicate)).join(', ')}`);
  say(`msgId: records in the stream ${String((await payments.read()).length)}`);
}
