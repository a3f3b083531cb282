/**
 * Recipe "Pausing, resuming and resetting a group" (docs/guide/bus-recipes.md): a pause every
 * consumer of the group obeys, a resume that picks up where the group stood, a reset that
 * replays, and a delete.
 */
import type { StreamBus } from '@echo/bus';
import { say, sleep, streamName, until } from './shared.js';

export async function groupControls(bus: StreamBus): Promise<void> {
  const audit = bus.stream(streamName('audit'));
  say(`groups: openGroup ${await audit.openGroup('indexer', 'new')}, again ${await audit.openGroup('indexer', 'new')}`);
  await audit.pauseGroup('indexer');
  await audit.appendBatch([{ n: '1' }, { n: '2' }]);

  let handled = 0;
  const count = (): void => {
    handled++;
  };
  const consumer = await audit.consume('indexer', count, { start: 'new', consumer: 'i1', beatMs: 50 });
  await sleep(300); // six beats: a paused group reads nothing
  say(`groups: paused ${String(await audit.isGroupPaused('indexer'))}, handled ${String(handled)}`);

  await audit.resumeGroup('indexer');
  await until(() => handled === 2);
  say(`groups: after resume handled ${String(handled)}`);
  await consumer.close();

  await audit.resetGroup('indexer', 'head'); // replay the stream from its head
  const replay = await audit.consume('indexer', count, { start: 'new', consumer: 'i2' }); // the group's position wins over start
  await until(() => handled === 4);
  await replay.close();
  say(`groups: after reset to head handled ${String(handled)}; deleted ${String(await audit.deleteGroup('indexer'))}`);
}
