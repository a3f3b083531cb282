import { connect as netConnect, type Socket } from 'node:net';
import { Connection } from '@echo/protocol/queue';
import { startRedis, uniqueName, waitFor, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from '../src/index.js';

// An idle worker's pickup rides on its wake read: the claim is sent right behind the blocking
// BLPOP on the wake connection, and the server runs it as the pop ends. The wire shows it: the
// EVALSHA that leases the job comes from the wake connection, and the worker's own connection
// sends none between the admission and the handler's start.

let server: RedisServer;
let producer: Connection;
let workerConn: Connection;

beforeAll(async () => {
  server = await startRedis();
  producer = await Connection.connect({ url: server.url, name: 'wake-test-producer' });
  workerConn = await Connection.connect({ url: server.url, name: 'wake-test-worker' });
});

afterAll(async () => {
  await Promise.all([producer.close(), workerConn.close()]);
  await server.stop();
});

/** `addr` of the connection named `name` (CLIENT LIST), once `ready` holds for its line. */
async function addrOf(name: string, ready: (line: string) => boolean = () => true): Promise<string> {
  let addr = '';
  await waitFor(
    async () => {
      const list = String(await producer.command('CLIENT', 'LIST'));
      const line = list.split('\n').find((l) => l.includes(` name=${name} `) && ready(l));
      addr = /(?:^| )addr=(\S+)/.exec(line ?? '')?.[1] ?? '';
      return addr !== '';
    },
    { timeoutMs: 10_000 },
  );
  return addr;
}

/** The wake connection, once its BLPOP blocks. */
function blockedWake(): Promise<string> {
  return addrOf('echo-worker-wake', (l) => l.includes(' cmd=blpop ') && / flags=\S*b/.test(l));
}

/** Starts MONITOR on its own socket; answers the socket and a reader of the lines so far. */
async function monitor(): Promise<{ socket: Socket; lines: () => string[] }> {
  let text = '';
  const socket = netConnect(server.port, '127.0.0.1');
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.write('MONITOR\r\n');
  await waitFor(() => text.startsWith('+OK'), { timeoutMs: 5000 });
  return { socket, lines: () => text.split('\r\n').filter((l) => l.startsWith('+') && l.includes('] "') && !l.includes(' lua] ')) };
}

/** The client address and command name of a MONITOR line. */
function parse(line: string): { addr: string; command: string } {
  const addr = /\[\d+ ([^\]]+)\]/.exec(line)?.[1] ?? '';
  const command = (/\] "([^"]*)"/.exec(line)?.[1] ?? '').toUpperCase();
  return { addr, command };
}

describe('an idle worker claims on its wake read', () => {
  it('the job is leased by the wake connection, right behind the BLPOP, with no claim from the worker connection', async () => {
    const name = uniqueName('wake-claim');
    const queue = await Queue.open<number>(name, { connection: producer });
    const workerQueue = await Queue.open<number>(name, { connection: workerConn });
    let started: (n: number) => void = () => undefined;
    const start = new Promise<number>((resolve) => (started = resolve));
    const worker = await Worker.start(workerQueue, (job) => started(job.payload), { concurrency: 1, blockMs: 1000 });
    const mon = await monitor();
    try {
      const wakeAddr = await blockedWake();
      const producerAddr = await addrOf('wake-test-producer');
      const workerAddr = await addrOf('wake-test-worker');
      const before = mon.lines().length;
      await queue.enqueue(7);
      expect(await start).toBe(7);
      await waitFor(async () => (await queue.counts('completed')).completed === 1, { timeoutMs: 10_000 });
      const during = mon.lines().slice(before).map(parse);
      const enqueueAt = during.findIndex((c) => c.addr === producerAddr && c.command === 'EVALSHA');
      expect(enqueueAt).toBeGreaterThanOrEqual(0);
      const after = during.slice(enqueueAt + 1);
      // The pop that was waiting ended; the claim is the EVALSHA the wake connection sent behind it.
      const wakeClaim = after.findIndex((c) => c.addr === wakeAddr && c.command === 'EVALSHA');
      expect(wakeClaim).toBeGreaterThanOrEqual(0);
      // The worker's own connection sent no script before that claim: its first is the completion.
      expect(after.slice(0, wakeClaim).filter((c) => c.addr === workerAddr)).toEqual([]);
      expect(after.slice(wakeClaim).some((c) => c.addr === workerAddr && c.command === 'EVALSHA')).toBe(true);
    } finally {
      mon.socket.destroy();
      await worker.close();
    }
  });

  it('paused while its wait carries a claim: the job is handed back untouched by a handler, and runs after resume', async () => {
    const name = uniqueName('wake-claim-pause');
    const queue = await Queue.open<number>(name, { connection: producer });
    const workerQueue = await Queue.open<number>(name, { connection: workerConn });
    const seen: number[] = [];
    const worker = await Worker.start(workerQueue, (job) => void seen.push(job.payload), { concurrency: 1, blockMs: 1000 });
    try {
      // The worker is idle, its wait (and the claim behind it) on the wire; then it pauses.
      await blockedWake();
      worker.pause();
      const { id } = await queue.enqueue(1);
      // The claim behind the wait took the job as the pop ended, and the paused worker gave it back.
      await waitFor(async () => (await queue.getJob(id))?.attempts === 1 && (await queue.counts('pending')).pending === 1, { timeoutMs: 10_000 });
      expect(seen).toEqual([]);
      expect(await queue.counts('active')).toEqual({ active: 0 });
      worker.resume();
      await waitFor(() => seen.length === 1, { timeoutMs: 10_000 });
      expect(seen).toEqual([1]);
    } finally {
      await worker.close();
    }
  });
});

describe('a flow wakes the idle workers of the queues its children land in', () => {
  // Workers whose beat is a minute: without a wake token from the flow's admission, a child would
  // wait out the beat (the waits below give up after 10 s).
  it('a same-queue flow and a child in another queue are taken by parked workers at once', async () => {
    const parents = await Queue.open<string>(uniqueName('wake-flow'), { connection: producer });
    const kids = await Queue.open<string>(uniqueName('wake-flow-kids'), { connection: producer });
    const seen: string[] = [];
    const workers = await Promise.all(
      [parents.name, kids.name].map(async (name) => Worker.start(await Queue.open<string>(name, { connection: workerConn }), (job) => void seen.push(job.payload), { blockMs: 60_000 })),
    );
    try {
      await waitFor(async () => String(await producer.command('CLIENT', 'LIST')).split('\n').filter((l) => l.includes(' cmd=blpop ')).length >= 2, { timeoutMs: 10_000 });
      await parents.addFlow({ parent: { payload: 'p1' }, children: [{ payload: 'same' }] });
      await waitFor(() => seen.includes('p1'), { timeoutMs: 10_000 });
      await parents.addFlow({ parent: { payload: 'p2' }, children: [{ payload: 'other', queue: kids.name }] });
      await waitFor(() => seen.includes('other'), { timeoutMs: 10_000 });
      expect(seen.slice(0, 3)).toEqual(['same', 'p1', 'other']);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });
});
