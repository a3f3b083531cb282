/**
 * A BullMQ app on `@echo/bullmq` alone (with the queue and protocol it depends on): the code a
 * BullMQ user already has, with the import changed. The release check typechecks it, bundles it and
 * runs it against a real server.
 */
import { Queue, QueueEvents, Worker, type Job } from '@echo/bullmq';

const url = process.env.REDIS_URL;
if (url === undefined) throw new Error('REDIS_URL is required');
const { hostname: host, port } = new URL(url);
const connection = { host, port: Number(port) };
const JOBS = 20;
const name = `release-bullmq-${String(process.pid)}`;

const queue = new Queue<{ n: number }, number>(name, { connection });
const queueEvents = new QueueEvents(name, { connection });
let completed = 0;
let allRan: () => void = () => undefined;
const ran = new Promise<void>((resolve) => (allRan = resolve));
const worker = new Worker<{ n: number }, number>(name, async (job: Job<{ n: number }, number>) => {
  await job.updateProgress(50);
  return job.data.n * 2;
}, { connection, concurrency: 4 });
worker.on('completed', () => {
  completed++;
  if (completed === JOBS) allRan();
});
await queue.addBulk(Array.from({ length: JOBS - 1 }, (_, n) => ({ name: 'double', data: { n } })));
const last = await queue.add('double', { n: 21 }, { jobId: 'the-last-one' });
const answer = await last.waitUntilFinished(queueEvents, 10_000);
await ran;
await worker.close();
await queueEvents.close();
await queue.obliterate({ force: true });
await queue.close();
console.log(JSON.stringify({ app: 'bullmq', completed, answer }));
if (completed !== JOBS || answer !== 42) process.exit(1);
