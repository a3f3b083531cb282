/**
 * A worker process for the fault run: opens the queue named on the command line on the server in
 * `REDIS_URL` (or the cluster seeds in `REDIS_CLUSTER`), runs a recorded worker and sends every
 * operation to its parent over IPC. The schedule SIGKILLs it; it never exits by itself otherwise.
 */
import { ConnectError, Connection, type ConnectOptions } from '@echo/protocol';
import { Queue } from '@echo/queue';
import type { Operation } from '@echo/testkit';
import { startRecordedWorker, type FaultJob, type WorkerNotes } from './recorded-worker.js';

const [queueName, name] = process.argv.slice(2) as [string, string];
const address = (seed: string): { host: string; port: number } => ({ host: seed.split(':')[0] as string, port: Number(seed.split(':')[1]) });
const cluster = process.env.REDIS_CLUSTER;
const sentinel = process.env.REDIS_SENTINEL;
const options: ConnectOptions = cluster
  ? { cluster: cluster.split(',').map(address) }
  : sentinel
    ? { sentinel: { name: sentinel.split('@')[0] as string, sentinels: (sentinel.split('@')[1] as string).split(',').map(address) } }
    : { url: process.env.REDIS_URL as string };
const send = (message: unknown): void => {
  if (process.connected) process.send?.(message);
};
/**
 * A child replaced by the schedule often starts while a fault is on (a master being killed, memory
 * full, a paused server) on a loaded machine, where one connect can outlast its 10 s budget: it tries
 * again, as a deployed worker's supervisor would restart it, instead of dying on the first refusal.
 */
async function connect(): Promise<Connection> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await Connection.connect({ ...options, replyTimeoutMs: 1_500 });
    } catch (error) {
      if (!(error instanceof ConnectError) || attempt >= CONNECT_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
const CONNECT_ATTEMPTS = 12;
const conn = await connect();
const queue = await Queue.open<FaultJob>(queueName, { connection: conn });
const notes: WorkerNotes = { errors: new Map(), samples: new Map(), outages: 0 };
await startRecordedWorker(queue, name, (op: Operation) => send({ op }), notes);
send({ ready: true });
setInterval(() => send({ notes: { errors: [...notes.errors], samples: [...notes.samples], outages: notes.outages } }), 1_000);
process.on('disconnect', () => process.exit(0));
