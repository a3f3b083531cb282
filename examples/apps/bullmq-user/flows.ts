/**
 * Flows (docs/guide/queue-recipes.md "Logs, results and children's values", the queue README's
 * flows): BullMQ's FlowProducer is queue.addFlow here. A parent runs once its children are done
 * and reads their results; a child marked continueParentOnFailure lets the parent run when it
 * dies, and the parent reads why with ignoredFailures.
 */
import { decodeResult, Queue, Worker } from '@echo/queue';
import { queueName, say, url } from './shared.js';

interface Part {
  readonly sku: string;
  readonly qty: number;
}

export async function flows(): Promise<void> {
  const orders = await Queue.open<Part>(queueName('orders'), { connect: url, keep: { completed: { count: 100 } } });
  const worker = await Worker.start(
    orders,
    async (job, ctx) => {
      if (job.payload.sku === 'bundle') {
        // The parent: its children are done (or gave up); read what they left.
        const values = Object.values(await ctx.childrenValues()).map((text) => String(decodeResult(text)));
        const failed = Object.values(await orders.ignoredFailures(job.id));
        return `packed ${[...values].sort().join(' + ')}${failed.length > 0 ? ` without a part (${failed.join('; ')})` : ''}`;
      }
      if (job.payload.sku === 'OUT') throw new Error('out of stock');
      return `${String(job.payload.qty)}x${job.payload.sku}`;
    },
    { concurrency: 4, maxAttempts: 1 },
  );

  const flow = await orders.addFlow({
    parent: { payload: { sku: 'bundle', qty: 1 } },
    children: [{ payload: { sku: 'A1', qty: 2 } }, { payload: { sku: 'B2', qty: 1 } }],
  });
  say(`flows: parent ${String((await orders.waitUntilFinished(flow.id, { timeoutMs: 10_000 })).result)}`);
  const values = await orders.childrenValues(flow.id);
  say(`flows: childrenValues from outside: ${String(Object.keys(values).length)} children`);

  const partial = await orders.addFlow({
    parent: { payload: { sku: 'bundle', qty: 1 } },
    children: [{ payload: { sku: 'A1', qty: 1 } }, { payload: { sku: 'OUT', qty: 1 }, continueParentOnFailure: true }],
  });
  say(`flows: continueParentOnFailure: ${String((await orders.waitUntilFinished(partial.id, { timeoutMs: 10_000 })).result)}`);
  await worker.close();
  await orders.close();
}
