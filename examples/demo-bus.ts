/** The bus part of the demo: an audit stream, a time-window read and a consumer group. */
import { Bus } from '@echo/bus';
import type { Connection } from '@echo/protocol';

export async function busDemo(conn: Connection, queue: string, keep: boolean): Promise<void> {
  const bus = await Bus.open(queue, { connection: conn });
  const audit = bus.stream('audit');
  const before = Date.now();
  const ids = await audit.appendBatch(Array.from({ length: 500 }, (_, i) => ({ order: String(i), action: i % 10 === 0 ? 'refund' : 'ship' })));
  const window = await audit.readWindow(before, Date.now());

  let handled = 0;
  let redelivered = 0;
  const refundsSeen = new Set<string>();
  const consumer = await audit.consume(
    'billing',
    (entry) => {
      handled++;
      if (entry.attempts > 1) redelivered++;
      // One entry fails on its first delivery: left pending, then claimed again (at least once).
      if (entry.id === ids[7] && entry.attempts === 1) throw new Error('billing system busy');
      // One refund is refused for good: it goes to the stream's dead-letter stream (the dashboard shows it).
      if (entry.id === ids[30]) return { deadLetter: 'refund over the daily limit' };
      if (entry.payload.action === 'refund') refundsSeen.add(entry.id);
      return 'ack';
    },
    // minIdleMs: how long a failed entry waits before it is claimed again. Not much shorter: a
    // batch still in its handlers for longer than that (a loaded machine) would be claimed again
    // whole, and the refused refund dead-lettered twice.
    { start: 'head', consumer: 'billing-1', minIdleMs: 1_000, beatMs: 100, onError: () => undefined },
  );
  try {
    const started = Date.now();
    while ((handled < 501 || redelivered < 1 || (await audit.deadLetters()).length < 1) && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 20));
  } finally {
    // Its reads would keep the process alive after a failure.
    await consumer.close();
  }

  console.log('\nBus');
  console.log(`  stream        ${ids.length} EVT records appended in one pipeline; XADD ids follow mint order`);
  console.log(`  time travel   readWindow(before, now) returned ${window.length} records, first ${window[0]?.[0] ?? '-'}`);
  console.log(`  group         ${handled} deliveries for ${ids.length} records (${redelivered} redelivered after a failure), ${refundsSeen.size} refunds`);
  const [letter] = await audit.deadLetters();
  console.log(`  dead letter   ${letter?.id ?? '-'}: "${letter?.reason ?? ''}" (redrive it from the dashboard or emq redrive)`);
  // The demo leaves nothing behind (the stream goes with its group in one transition), unless asked
  // to keep it for a look with emq or the dashboard.
  if (!keep) await audit.drop();
}
