import { Bus, type Stream } from '@echo/bus';
import { Cache, type Namespace } from '@echo/cache';
import { mintId, type Connection, type JobId } from '@echo/protocol/extend';
import { Queue, Worker } from '@echo/queue';

/** An order; `declined` orders fail their first attempt. */
export interface Order {
  readonly sku: string;
  readonly qty: number;
  readonly declined?: boolean;
}

/** A small live system for the dashboard to show: what the browser test drives and screenshots. */
export interface DemoWorkload {
  readonly orders: Queue<Order>;
  /** The order that went dead with "card declined", waiting for an operator's retry. */
  readonly declined: JobId;
  /** `invoices`: three jobs dead after two attempts each (attempt history on, failed jobs kept), under keys `inv-1`..`inv-3`. */
  readonly invoices: Queue<{ n: number }>;
  /** `shipments`: five jobs with names and business keys, completed and kept (retention on). */
  readonly shipments: Queue<{ parcel: number }>;
  readonly deadInvoices: JobId[];
  /** `orders/refunds`: a stream whose `ledger` group dead-lettered two entries. */
  readonly refunds: Stream;
  readonly deadRefunds: string[];
  readonly cache: Cache;
  /** `sessions`: a keyed namespace of four entries, tagged by team, with a few hits. */
  readonly sessions: Namespace<{ user: string }>;
  stop(): Promise<void>;
}

/**
 * `orders`: a worker completes a steady trickle of orders and dead-letters a declined one (one
 * attempt allowed, so a retry is its second and succeeds); `emails`: paused with a backlog;
 * `reports`: scheduled for later; an `audit` stream with a lagging consumer group; a `users` cache
 * table read through with some hits.
 */
export async function startDemoWorkload(conn: Connection): Promise<DemoWorkload> {
  const orders = await Queue.open<Order>('orders', { connection: conn });
  await orders.setEvents({ history: 20, minutes: 180 });
  const worker = await Worker.start(
    orders,
    async (job, ctx) => {
      await ctx.log(`charging ${job.payload.qty} x ${job.payload.sku}`);
      if (job.payload.declined === true && job.attempts === 1) throw new Error('card declined');
    },
    { concurrency: 4, maxAttempts: 1, blockMs: 200, maintenanceMs: 100 },
  );
  const events = await orders.events();
  const { id: declined } = await orders.enqueue({ sku: 'B7', qty: 3, declined: true }, { key: 'order-B7', name: 'charge' });
  // It dies on its one attempt: the wait rejects with JobFailedError, which is the point here.
  await orders.waitUntilFinished(declined, { events }).catch(() => undefined);
  await events.close();
  await orders.enqueueMany(Array.from({ length: 40 }, (_, n) => ({ payload: { sku: `A${n % 5}`, qty: 1 + (n % 3) } })));
  const trickle = setInterval(() => void orders.enqueue({ sku: 'A1', qty: 1 }).catch(() => undefined), 150);

  const emails = await Queue.open<{ to: string }>('emails', { connection: conn });
  await emails.pause();
  await emails.enqueueMany(Array.from({ length: 12 }, (_, n) => ({ payload: { to: `user${n}@example.com` } })));
  const reports = await Queue.open<{ day: string }>('reports', { connection: conn });
  await reports.enqueue({ day: 'monday' }, { delayMs: 3_600_000 });
  await reports.enqueue({ day: 'tuesday' }, { delayMs: 7_200_000 });
  await reports.upsertScheduler('daily-report', { everyMs: 86_400_000, firstInMs: 0 }, { day: 'today' });
  await reports.maintenance().fireDueRepeats();

  // Failed jobs are kept too (the failed tab lists them), as the demo's orders queue keeps them.
  const invoices = await Queue.open<{ n: number }>('invoices', { connection: conn, keep: { failed: { count: 100 } } });
  await invoices.setEvents({ history: 20, minutes: 180 });
  const deadInvoices: JobId[] = [];
  for (let n = 1; n <= 3; n++) deadInvoices.push((await invoices.enqueue({ n }, { key: `inv-${String(n)}`, name: 'send-invoice' })).id);
  const biller = await Worker.start(invoices, (job) => {
    throw new Error(`mail server refused invoice ${String(job.payload.n)} (attempt ${String(job.attempts)})`);
  }, { maxAttempts: 2, backoff: () => 0, blockMs: 50, maintenanceMs: 20 });
  while ((await invoices.counts('dead')).dead < 3) await new Promise((resolve) => setTimeout(resolve, 20));
  await biller.close();

  // What `pnpm demo --keep` leaves too: named, keyed jobs kept after they complete.
  const shipments = await Queue.open<{ parcel: number }>('shipments', { connection: conn, keep: { completed: { count: 100 } } });
  await shipments.setEvents({ history: 20, minutes: 180 });
  for (let n = 1; n <= 5; n++) await shipments.enqueue({ parcel: n }, { key: `parcel-${String(n)}`, name: n % 2 === 0 ? 'ship-bulky' : 'ship-order' });
  const shipper = await Worker.start(shipments, (job) => `shipped ${String(job.payload.parcel)}`, { blockMs: 50, maintenanceMs: 20 });
  while ((await shipments.counts('retained')).retained < 5) await new Promise((resolve) => setTimeout(resolve, 20));
  await shipper.close();

  const audit = (await Bus.open('orders', { connection: conn })).stream('audit');
  await audit.appendBatch(Array.from({ length: 25 }, (_, n) => ({ order: String(n) })));
  await audit.openGroup('billing', 'head');
  await conn.command('XREADGROUP', 'GROUP', 'billing', 'billing-1', 'COUNT', 20, 'STREAMS', audit.key, '>');
  await audit.openGroup('analytics', 'new');
  const refunds = (await Bus.open('orders', { connection: conn })).stream('refunds');
  const refundIds = [await refunds.append({ order: 'r1' }), await refunds.append({ order: 'r2' })];
  const ledger = await refunds.consume('ledger', () => ({ deadLetter: 'ledger closed for the day' }), { start: 'head', consumer: 'ledger-1' });
  while ((await refunds.deadLetters()).length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
  await ledger.close();

  const cache = await Cache.open({ connection: conn });
  const users = await cache.declare({ name: 'users', kind: 'USR', loader: (id) => ({ id, plan: 'pro' }) });
  const ids = Array.from({ length: 6 }, () => mintId('USR'));
  for (const id of [...ids, ...ids, ...ids.slice(0, 3)]) await users.fetch(id);
  const sessions = await cache.namespace<{ user: string }>({ name: 'sessions', ttlMs: 600_000 });
  for (const [key, user, team] of [['s-ann', 'ann', 'team-a'], ['s-bob', 'bob', 'team-a'], ['s-cy', 'cy', 'team-b'], ['s-di', 'di', 'team-b']] as const) {
    await sessions.set(key, { user }, { tags: [team] });
  }
  for (const key of ['s-ann', 's-ann', 's-bob', 's-zed']) await sessions.get(key);

  return {
    orders,
    declined,
    invoices,
    deadInvoices,
    shipments,
    refunds,
    deadRefunds: refundIds,
    cache,
    sessions,
    stop: async () => {
      clearInterval(trickle);
      await worker.close();
      await cache.close();
    },
  };
}
