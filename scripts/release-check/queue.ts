/**
 * A first app with `@echo/queue` alone, as a user writes it: enqueue, let a worker run every job,
 * read the counts. The release check typechecks it, bundles it and runs it against a real server.
 */
import { Queue, Worker } from '@echo/queue';

const url = process.env.REDIS_URL;
if (url === undefined) throw new Error('REDIS_URL is required');
const JOBS = 50;

const queue = await Queue.open<{ n: number }>(`release-queue-${process.pid}`, { connect: url });
let processed = 0;
let allRan: () => void = () => undefined;
const ran = new Promise<void>((resolve) => (allRan = resolve));
const worker = await Worker.start(queue, (job) => {
  processed += job.payload.n >= 0 ? 1 : 0;
  if (processed === JOBS) allRan();
}, { concurrency: 8 });
await queue.enqueueMany(Array.from({ length: JOBS }, (_, n) => ({ payload: { n } })));
await ran;
await worker.close();
const counts = await queue.counts('pending', 'active', 'completed');
await queue.pause(); // obliterate refuses a queue that is still live
await queue.obliterate({ force: true });
await queue.close();
console.log(JSON.stringify({ app: 'queue', processed, ...counts }));
if (counts.completed !== JOBS || counts.pending !== 0) process.exit(1);
