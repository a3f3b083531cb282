import { connect as netConnect, type Socket } from 'node:net';
import { startRedis, uniqueName, waitFor, type RedisServer } from '@echo/testkit';
import { Connection, mintId } from '@echo/protocol/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWorker, fixed, Queue, Worker } from '../src/index.js';

// Every state change is a transition: under MONITOR, the only commands a client (not a script)
// sends that write a protocol key are the ones the spec names for clients. Scripts' own commands
// carry `[<db> lua]` in MONITOR and are not counted.
const CLIENT_WRITES_ALLOWED = new Set(['PUBLISH', 'SET {emq}:version', 'XADD', 'XACK', 'XGROUP', 'XTRIM']);
const READS = new Set([
  'EVALSHA', 'SCRIPT', 'GET', 'HGETALL', 'HMGET', 'HGET', 'ZRANGE', 'ZCARD', 'LRANGE', 'LLEN', 'EXISTS', 'BLPOP', 'SUBSCRIBE',
  'UNSUBSCRIBE', 'PING', 'HELLO', 'CLIENT', 'QUIT', 'INFO', 'SELECT', 'COMMAND', 'TIME', 'XRANGE', 'XREADGROUP', 'XPENDING',
  'XAUTOCLAIM', 'ZSCORE', 'TTL', 'PTTL', 'MONITOR',
]);

let server: RedisServer;
let monitor: Socket;
let lines = '';

beforeAll(async () => {
  server = await startRedis();
  monitor = netConnect(server.port, '127.0.0.1');
  monitor.setEncoding('utf8');
  monitor.on('data', (chunk: string) => (lines += chunk));
  monitor.write('MONITOR\r\n');
  await waitFor(() => lines.startsWith('+OK'), { timeoutMs: 5000 });
});

afterAll(async () => {
  monitor.destroy();
  await server.stop();
});

function clientCommands(): string[] {
  const out: string[] = [];
  for (const line of lines.split('\r\n')) {
    if (!line.startsWith('+') || line.includes(' lua] ') || !line.includes('] "')) continue;
    const words = [...line.slice(line.indexOf('] "') + 2).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] ?? '');
    const name = (words[0] ?? '').toUpperCase();
    out.push(name === 'SET' ? `SET ${words[1] ?? ''}` : name);
  }
  return out;
}

describe('wire: a worker writes only through transitions', () => {
  it('admission, claims, completions, retries, dead letters, lock markers, removal and flow failures send no direct write', async () => {
    const conn = await Connection.connect({ url: server.url });
    const queue = await Queue.open<{ n: number }>(uniqueName('wire'), { connection: conn });
    const done = new Set<number>();
    const worker = await Worker.start(
      queue,
      (job) => {
        // Every third job fails once (retry path), job 0 always fails (dead-letter path).
        if (job.payload.n === 0 || (job.payload.n % 3 === 0 && job.attempts === 1)) throw new Error('once');
        done.add(job.payload.n);
      },
      { concurrency: 4, maxAttempts: 2, backoff: fixed(1), lockMarkers: true, maintenanceMs: 20, blockMs: 50 },
    );
    await queue.enqueueMany(Array.from({ length: 60 }, (_, n) => ({ payload: { n } })));
    await waitFor(async () => done.size === 59 && (await queue.counts('dead')).dead === 1, { timeoutMs: 10_000 });
    await worker.close();

    const batch = await BatchWorker.start(queue, () => 'ok', { size: 10 });
    await queue.enqueueMany(Array.from({ length: 30 }, (_, n) => ({ payload: { n: 100 + n } })));
    await waitFor(async () => (await queue.counts('completed')).completed === 59 + 30, { timeoutMs: 10_000 });
    await batch.close();
    const { id } = await queue.enqueue({ n: 999 });
    await queue.remove(id);

    // A failure climbing a three-level flow: the leaf dies, kills its parent in the same step, and
    // the host re-emit carries it to the root through the outbox.
    const flows = await Queue.open<string>(uniqueName('wire-flow'), { connection: conn });
    const [root, node, leaf] = [mintId('JOB'), mintId('JOB'), mintId('JOB')];
    await flows.addFlow({ parent: { id: root, payload: 'root' }, children: [{ id: node, payload: 'node', children: [{ id: leaf, payload: 'leaf' }] }] });
    const failing = await Worker.start(flows, () => {
      throw new Error('leaf died');
    }, { maxAttempts: 1, maintenanceMs: 20, blockMs: 50 });
    await waitFor(async () => (await flows.getState(root)) === 'dead', { timeoutMs: 10_000 });
    await failing.close();
    await conn.close();

    const seen = clientCommands();
    // Enough traffic went by to mean something; fused rounds send far fewer calls than jobs.
    expect(seen.filter((c) => c === 'EVALSHA').length).toBeGreaterThan(30);
    const writes = seen.filter((c) => !READS.has(c) && !CLIENT_WRITES_ALLOWED.has(c));
    expect(writes).toEqual([]);
  });
});
