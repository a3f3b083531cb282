/**
 * One worker process of the rate-limit bench: opens the queue named on the command line and runs
 * `WORKERS` workers on it (each with its own wake connection), counting handler calls. It tells the
 * parent `ready` once every worker is started, and answers `stop` by closing them and reporting
 * how many jobs it ran.
 */
import { Queue, Worker } from '@echo/queue';

const [url, name, source, workersArg, blockArg] = process.argv.slice(2);
if (url === undefined || name === undefined) throw new Error('rate-child needs <url> <queue> <flat|lanes> <workers>');
const lanes = source === 'lanes';

const queue = await Queue.open<number>(name, { connect: url });
let ran = 0;
const workers = await Promise.all(
  Array.from({ length: Number(workersArg ?? '2') }, () =>
    Worker.start(queue, () => {
      ran++;
    }, { concurrency: 8, source: lanes ? 'lanes' : 'flat', blockMs: Number(blockArg ?? '1000'), maintenanceMs: 0 }),
  ),
);
process.send?.({ type: 'ready' });
process.on('message', (message: { type: string }) => {
  if (message.type !== 'stop') return;
  void (async () => {
    await Promise.all(workers.map((w) => w.close()));
    await queue.close();
    process.send?.({ type: 'done', ran });
    process.disconnect();
  })();
});
