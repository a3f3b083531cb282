/**
 * Recipe "Dead letters and redrive" (docs/guide/bus-recipes.md): a verdict that gives up at once,
 * the dead letters read back, and a redrive that makes them pending again for their group.
 */
import type { StreamBus } from '@echo/bus';
import { say, streamName, until } from './shared.js';

export async function deadLetters(bus: StreamBus): Promise<void> {
  const mail = bus.stream(streamName('mail'));
  await mail.append({ to: 'ada@example.com' });
  await mail.append({ to: 'bob@example.com' });

  let mailboxFixed = false;
  const delivered: string[] = [];
  const consumer = await mail.consume(
    'sender',
    ({ payload }) => {
      if (payload.to === 'ada@example.com' && !mailboxFixed) return { deadLetter: 'mailbox full' };
      delivered.push(payload.to ?? '?');
      return 'ack';
    },
    { start: 'head', consumer: 's1', onError: () => undefined },
  );
  await until(async () => (await mail.deadLetters()).length === 1 && delivered.length === 1);
  const [letter] = await mail.deadLetters();
  say(`dead letter: ${letter?.payload.to ?? '?'} group=${letter?.group ?? '?'} reason=${letter?.reason ?? '?'}`);

  mailboxFixed = true;
  const result = await mail.redrive({ all: true }); // pending again for the group that gave up
  await until(() => delivered.length === 2);
  await consumer.close();
  say(`redrive: redriven ${String(result.redriven)}, left ${String(result.left.length)}; delivered ${delivered.join(', ')}; dead letters now ${String((await mail.deadLetters()).length)}`);
}
