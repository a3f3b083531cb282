/**
 * Recipe "Batches, tails, retention and the archive watermark" (docs/guide/bus-recipes.md): a batch
 * handler that takes many entries at once, a tail that follows new entries without a group, and an
 * archiver's watermark.
 */
import type { StreamBus } from '@echo/bus';
import { say, streamName, until } from './shared.js';

export async function tailsAndBatches(bus: StreamBus): Promise<void> {
  const audit = bus.stream(streamName('activity'));
  const ids: string[] = [];
  for (let i = 1; i <= 6; i++) ids.push(await audit.append({ action: `edit-${String(i)}` }));

  // A batch handler gets up to `count` entries; returning nothing acks them all.
  const sizes: number[] = [];
  const indexer = await audit.consumeBatch('indexer', (entries) => {
    sizes.push(entries.length);
  }, { start: 'head', consumer: 'ix-1', count: 500 });
  await until(() => sizes.reduce((a, b) => a + b, 0) === 6);
  await indexer.close();
  const [lag] = await audit.lag('indexer');
  say(`consumeBatch: 6 entries in ${String(sizes.length)} batch(es) of at most 500; pending after ${String(lag?.pending)}`);

  // A tail reads new entries as they come, with no group (nothing to ack, nothing pending).
  const tail = audit.tail({ from: 'new', blockMs: 1_000 });
  await tail.ready();
  await audit.append({ action: 'login' });
  await audit.append({ action: 'stop' });
  const seen: string[] = [];
  for await (const [, fields] of tail) {
    seen.push(fields.action ?? '?');
    if (fields.action === 'stop') break;
  }
  say(`tail from new: ${seen.join(', ')}`);

  // An archiver folds old entries elsewhere, then records how far it got.
  await audit.putArchived(ids[2] ?? '');
  say(`archive watermark: ${String((await audit.getArchived()) === ids[2])}, cleared ${String(await audit.clearArchived())}`);
}
