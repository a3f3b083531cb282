/**
 * Recipes "Lanes" and "Batches" (docs/guide/queue-recipes.md): a fair share per tenant (BullMQ
 * Pro's groups), and a handler that takes jobs in batches.
 */
import { BatchWorker, Queue, Worker } from '@echo/queue';
import { queueName, say, signal, sleep, url } from './shared.js';

export async function lanes(): Promise<void> {
  const exports = await Queue.open<{ file: string }>(queueName('exports'), { connect: url });
  // tenant-a floods the queue first; tenant-b's two jobs still run among the first few.
  for (let i = 1; i <= 6; i++) await exports.enqueueInLane('tenant-a', { file: `a${String(i)}.csv` });
  await exports.enqueueInLane('tenant-b', { file: 'b1.csv' });
  await exports.enqueueInLane('tenant-b', { file: 'b2.csv' });
  await exports.enqueueInLane('tenant-c', { file: 'c1.csv' });
  await exports.lanePause('tenant-c'); // its jobs wait; the others run
  say(`lanes: pending per lane ${(await exports.laneDepths(['tenant-a', 'tenant-b', 'tenant-c'])).join(', ')}`);

  const order: string[] = [];
  const eight = signal();
  const worker = await Worker.start(
    exports,
    (job) => {
      order.push(job.payload.file);
      if (order.length === 8) eight.fire();
    },
    { source: 'lanes' },
  );
  await eight.done;
  await worker.close();
  const firstFour = order.slice(0, 4);
  say(`lanes: tenant-b among the first four ${String(firstFour.includes('b1.csv') && firstFour.includes('b2.csv'))}; tenant-c paused, drained ${String(await exports.laneDrain('tenant-c'))}`);
  await exports.close();

  const rows = await Queue.open<{ row: string }>(queueName('rows'), { connect: url });
  for (let i = 1; i <= 5; i++) await rows.enqueue({ row: `r${String(i)}` });
  const sizes: number[] = [];
  const batcher = await BatchWorker.start(rows, (jobs) => {
    sizes.push(jobs.length);
    return 'ok' as const; // or a map from job id to each job's verdict
  }, { size: 500 });
  while (sizes.reduce((a, b) => a + b, 0) < 5) await sleep(20);
  await batcher.close();
  say(`batches: 5 rows handled in ${String(sizes.length)} batch${sizes.length === 1 ? '' : 'es'}`);
  await rows.close();
}
