/**
 * Day one, from the @echo/bus README: a bus without a queue, appends, a time-window read, one
 * consumer group with two consumers, an ack, a redelivery and a dead letter. Answers whether
 * everything it expected happened.
 */
import type { GroupEntry, GroupHandler, StreamBus } from '@echo/bus';
import { say, streamName } from './shared.js';

export async function dayOne(bus: StreamBus): Promise<boolean> {
  const orders = bus.stream(streamName('orders')); // key emq:{orders-<pid>}:stream:orders-<pid>: no queue to invent
  say(`stream key: ${orders.key}`);

  // Append: each record gets an EVT id, minted here; the id is the receipt.
  const t0 = Date.now();
  const ids: string[] = [];
  for (const [order, amount] of [['o1', '10.00'], ['o2', '25.50'], ['o3', '7.25'], ['o4', '99.00'], ['o5', '3.10']] as const) {
    ids.push(await orders.append({ order, amount }));
  }
  const t1 = Date.now();
  say(`appended ${String(ids.length)} records: ${ids.join(' ')}`);

  // Read back: by time window (to the ms), and the first two in id order.
  const window = await orders.readWindow(t0, t1);
  say(`window [t0, t1]: ${String(window.length)} records, first ${window[0]?.[0] ?? '-'} = ${JSON.stringify(window[0]?.[1])}`);
  const firstTwo = await orders.read({ count: 2 });
  say(`read { count: 2 }: ${firstTwo.map(([id, fields]) => `${fields.order ?? '?'}@${id}`).join(' ')}`);

  // One group, two consumers. o3 fails once (redelivered, then acked); o5 always fails and goes to
  // the dead letters after its second delivery (maxDeliveries: 2).
  const handledBy = new Map<string, string[]>();
  const acked: string[] = [];
  let redelivered = '';
  function handler(consumer: string): GroupHandler {
    return (entry: GroupEntry) => {
      const order = entry.payload.order ?? '?';
      handledBy.set(consumer, [...(handledBy.get(consumer) ?? []), `${order}#${String(entry.attempts)}`]);
      if (order === 'o3' && entry.attempts === 1) throw new Error('payment service timed out');
      if (order === 'o3') redelivered = `o3 redelivered (attempt ${String(entry.attempts)}) and acked`;
      if (order === 'o5') throw new Error('card declined');
      acked.push(order);
    };
  }
  const settings = { start: 'head', minIdleMs: 200, beatMs: 100, count: 1, maxDeliveries: 2 } as const;
  const a = await orders.consume('billing', handler('billing-a'), { ...settings, consumer: 'billing-a' });
  const b = await orders.consume('billing', handler('billing-b'), { ...settings, consumer: 'billing-b' });

  const deadline = Date.now() + 20_000;
  let dead = await orders.deadLetters();
  while ((acked.length < 4 || dead.length < 1) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    dead = await orders.deadLetters();
  }
  await a.close();
  await b.close();

  say(`acked: ${[...acked].sort().join(' ')}`);
  for (const [consumer, seen] of [...handledBy].sort()) say(`${consumer} handled: ${seen.join(' ')}`);
  say(redelivered === '' ? 'no redelivery seen' : redelivered);
  for (const d of dead) say(`dead letter: ${d.payload.order ?? '?'} id=${d.id} group=${d.group} attempts=${String(d.attempts)} reason=${d.reason}`);
  const [lag] = await orders.lag('billing');
  say(`lag billing: undelivered=${String(lag?.undelivered)} pending=${String(lag?.pending)}`);
  return acked.length === 4 && dead.length === 1 && redelivered !== '';
}
