import type { LifecycleEvent } from '@echo/protocol/queue';
import { startCluster, startRedis, type RedisCluster, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { progressValue, Queue, Worker, type QueueEvents, type WorkerOptions } from '../src/index.js';
import { until, within } from './worker-harness.js';

const FAST: WorkerOptions = { maintenanceMs: 0, blockMs: 200, concurrency: 1 };

let server: RedisServer;
let n = 0;

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server.stop();
});

async function open<T>(): Promise<Queue<T>> {
  return Queue.open<T>(`lifecycle-${String(++n)}-${String(process.pid)}`, { connect: { host: server.host, port: server.port, strictKeys: true } });
}

/** Every parsed event a listener sees, in arrival order. */
function record(events: QueueEvents): LifecycleEvent[] {
  const seen: LifecycleEvent[] = [];
  events.on('*', (event) => seen.push(event));
  return seen;
}

describe('the chatty events (waiting, active, drained)', () => {
  it('are not published until the queue asks for them', async () => {
    const q = await open<string>();
    const events = await q.events();
    const seen = record(events);
    const { id } = await q.enqueue('quiet');
    const job = await q.leases().claim(1000);
    expect(job?.id).toBe(id);
    // Messages on one channel arrive in publish order: once the marker is here, anything the
    // admission or the claim published would be too.
    await q.updateProgress(id, 1);
    await until(() => seen.some((e) => e.event === 'progress'), 'the marker');
    expect(seen.map((e) => e.event)).toEqual(['progress']);
    await events.close();
    await q.close();
  });

  it('follow a job through admission, claim and completion, with the attempt and the drain', async () => {
    const q = await open<string>();
    await q.setEvents({ chatty: true });
    const events = await q.events();
    const seen = record(events);
    const { id } = await q.enqueue('one');
    const done = q.waitUntilFinished(id, { timeoutMs: 5000, events });
    const worker = await Worker.start(q, () => undefined, FAST);
    await done;
    await worker.close();
    const trail = seen.map((e) => [e.event, e.job, e.fields]);
    expect(trail).toEqual([
      ['waiting', id, {}],
      ['active', id, { attempt: '1' }],
      ['drained', '', {}],
      ['completed', id, {}],
    ]);
    await events.close();
    await q.close();
  });

  it('cover bulk admission: one waiting per admitted job, none for a duplicate', async () => {
    const q = await open<string>();
    await q.setEvents({ chatty: true });
    const events = await q.events();
    const waiting: string[] = [];
    events.on('waiting', (e) => waiting.push(e.job));
    const first = await q.enqueueMany([{ payload: 'a' }, { payload: 'b' }]);
    const ids = first.map((r) => ('id' in r ? r.id : ''));
    await q.enqueueMany([{ payload: 'again', id: ids[0] ?? '' }, { payload: 'c' }]);
    await until(() => waiting.length >= 3, 'three waiting events');
    const marker = events.next((e) => e.event === 'progress');
    await q.updateProgress(ids[0] ?? '', 1);
    await marker;
    expect(waiting).toHaveLength(3);
    expect(waiting.slice(0, 2)).toEqual(ids);
    await q.setEvents({ chatty: false });
    await q.enqueue('after');
    const second = events.next((e) => e.event === 'progress' && e.job === ids[1]);
    await q.updateProgress(ids[1] ?? '', 2);
    await second;
    expect(waiting).toHaveLength(3);
    await events.close();
    await q.close();
  });
});

describe('the active event on lane claims', () => {
  it('is published for each job a lane claim leases, with its attempt', async () => {
    const q = await open<string>();
    await q.setEvents({ chatty: true });
    const events = await q.events();
    const active: [string, string | undefined][] = [];
    events.on('active', (e) => active.push([e.job, e.fields.attempt]));
    const group = 'USR0Nb1VTbfnu4';
    const { id: first } = await q.enqueueInLane(group, 'a');
    const { id: second } = await q.enqueueInLane(group, 'b');
    expect((await q.leases().laneClaim(60_000))?.id).toBe(first);
    expect((await q.leases().laneWeightedClaim(60_000)).map((j) => j.id)).toEqual([second]);
    await until(() => active.length === 2, 'two active events');
    expect(active).toEqual([
      [first, '1'],
      [second, '1'],
    ]);
    await events.close();
    await q.close();
  });
});

describe('the waiting event on promotion', () => {
  it('is published for each due job the promote step moves to pending', async () => {
    const q = await open<string>();
    await q.setEvents({ chatty: true });
    const events = await q.events();
    const { id } = await q.enqueue('later', { delayMs: 30 });
    const waiting = events.next((e) => e.event === 'waiting');
    await until(async () => (await q.maintenance().promote()) === 1, 'the due job promoted');
    expect(await waiting).toEqual({ event: 'waiting', job: id, fields: {} });
    await events.close();
    await q.close();
  });

  it('is published by promote(id), retryJobs and a lane admission too', async () => {
    const q = await open<string>();
    await q.setEvents({ chatty: true });
    const events = await q.events();
    const waiting: string[] = [];
    events.on('waiting', (e) => waiting.push(e.job));
    const { id: later } = await q.enqueue('later', { delayMs: 60_000 });
    await q.promote(later);
    const held = await q.leases().claim(60_000);
    if (held === undefined) throw new Error('nothing claimed');
    await q.leases().retry(held, 0, 1, 'dead at once');
    await q.retryJobs({ state: 'dead', count: 10 });
    const { id: laned } = await q.enqueueInLane('USR0Nb1VTbfnu4', 'in a lane');
    await until(() => waiting.length === 3, 'three waiting events');
    expect(waiting).toEqual([later, later, laned]);
    await events.close();
    await q.close();
  });
});

describe('the deduplicated event', () => {
  it('names the job already parked, the dedup id and the id turned away', async () => {
    const q = await open<string>();
    const events = await q.events();
    const first = await q.enqueue('x', { dedupId: 'order-42' });
    const seen = events.next((e) => e.event === 'deduplicated');
    const second = await q.enqueue('x again', { dedupId: 'order-42' });
    expect(second.status).toBe('duplicate');
    const event = await seen;
    expect(event.job).toBe(first.id);
    expect(event.fields).toEqual({ dedup: 'order-42', refused: expect.stringMatching(/^JOB/) as unknown });
    expect(event.fields.refused).not.toBe(first.id);
    await events.close();
    await q.close();
  });
});

describe('the events journal', () => {
  it('replays exactly the completions a listener missed, from its last id; the channel replays nothing', async () => {
    const q = await open<string>();
    await q.setEvents({ journal: 10_000 });
    const first = await q.enqueue('before');
    const reader = q.journal({ from: 'head' });
    const worker = await Worker.start(q, () => undefined, FAST);
    const seenFirst = await reader.next();
    expect(seenFirst.value?.event).toEqual({ event: 'completed', job: first.id, fields: {} });
    const lastId = reader.lastId ?? '';
    await reader.close();

    // Down: N jobs complete while nobody reads the journal or listens on the channel.
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push((await q.enqueue(`job ${String(i)}`)).id);
    await until(async () => (await q.getMetrics('completed')).count === 26, 'every job completed');
    await worker.close();

    const late = await q.events();
    const onChannel = record(late);
    const resumed = q.journal({ from: { after: lastId }, blockMs: 100 });
    const replayed: string[] = [];
    for await (const { event } of resumed) {
      if (event.event === 'completed') replayed.push(event.job);
      if (replayed.length === ids.length) break;
    }
    expect(replayed).toEqual(ids);
    // Nothing more is journaled after them, and nothing of the past arrived on the channel.
    const rest = q.journal({ from: { after: resumed.lastId ?? '' }, blockMs: 50 });
    await rest.ready();
    const more = await Promise.race([rest.next(), new Promise<'none'>((resolve) => setTimeout(() => resolve('none'), 300))]);
    expect(more).toBe('none');
    await rest.close();
    expect(onChannel).toEqual([]);
    await late.close();
    await q.close();
  });

  it('journals progress with its type, and stops when turned off, keeping what it holds', async () => {
    const q = await open<string>();
    await q.setEvents({ journal: 100 });
    const { id } = await q.enqueue('p');
    await q.updateProgress(id, 42);
    await q.updateProgress(id, '42');
    await q.setEvents({ journal: null });
    await q.updateProgress(id, 7);
    const reader = q.journal({ from: 'head', blockMs: 50 });
    const values = [];
    for await (const { event } of reader) {
      values.push(progressValue(event));
      if (values.length === 2) break;
    }
    expect(values).toEqual([42, '42']);
    expect(await q.connection.command('XLEN', q.keys.journal)).toBe(2);
    await q.close();
  });

  it('journals `delayed` and chatty `waiting` for enqueueMany items with options, from their script', async () => {
    const q = await open<string>();
    await q.setEvents({ chatty: true, journal: 100 });
    const [now, later] = await q.enqueueMany([{ payload: 'n', priority: 2 }, { payload: 'l', delayMs: 60_000 }]);
    const reader = q.journal({ from: 'head', blockMs: 50 });
    const trail: [string, string, Readonly<Record<string, string>>][] = [];
    for await (const { event } of reader) {
      trail.push([event.event, event.job, event.fields]);
      if (trail.length === 2) break;
    }
    expect(trail).toEqual([
      ['waiting', now?.id, {}],
      ['delayed', later?.id, { delayMs: '60000' }],
    ]);
    await q.close();
  });

  it('journals `completed` with its result whether or not the queue keeps completed jobs: complete, batch and round alike', async () => {
    const q = await open<string>();
    await q.setEvents({ journal: 100 });
    // Settles three held jobs with results, one through each completing script.
    const settleThree = async (tag: string): Promise<string[]> => {
      await q.enqueueMany([{ payload: 'a' }, { payload: 'b' }, { payload: 'c' }]);
      const [a, b, c] = await q.leases().claimBatch(3, 30_000);
      if (a === undefined || b === undefined || c === undefined) throw new Error('three jobs expected');
      await q.leases().complete(a, `${tag}-a`, { publish: true });
      await q.leases().completeMany([{ id: b.id, attempts: b.attempts, result: `${tag}-b` }], { publish: true });
      await q.leases().completeAndClaim([{ id: c.id, attempts: c.attempts, result: `${tag}-c` }], 0, 1000, { publish: true });
      return [a.id, b.id, c.id];
    };
    const off = await settleThree('off');
    await q.setRetention({ completed: { count: 10 } });
    const on = await settleThree('on');
    const reader = q.journal({ from: 'head', blockMs: 50 });
    const completed: [string, Readonly<Record<string, string>>][] = [];
    for await (const { event } of reader) {
      if (event.event === 'completed') completed.push([event.job, event.fields]);
      if (completed.length === 6) break;
    }
    expect(completed).toEqual([
      [off[0], { result: 'off-a' }],
      [off[1], { result: 'off-b' }],
      [off[2], { result: 'off-c' }],
      [on[0], { result: 'on-a' }],
      [on[1], { result: 'on-b' }],
      [on[2], { result: 'on-c' }],
    ]);
    await q.close();
  });

  it('obliterate deletes the journal with the rest of the queue', async () => {
    const q = await open<string>();
    await q.setEvents({ journal: 100 });
    const { id } = await q.enqueue('o');
    await q.remove(id);
    expect(await q.connection.command('EXISTS', q.keys.journal)).toBe(1);
    await q.pause();
    await q.obliterate();
    expect(await q.connection.command('EXISTS', q.keys.journal)).toBe(0);
    await q.close();
  });

  it('journals the settlement and admin events with their verdicts, in the order they happened', async () => {
    const q = await open<string>();
    await q.setEvents({ journal: 1000 });
    const reader = q.journal({ from: 'head', blockMs: 100 });
    const { id: a } = await q.enqueue('a');
    const held = await q.leases().claim(60_000);
    if (held === undefined) throw new Error('nothing claimed');
    expect(await q.leases().retry(held, 0, 3, 'boom', { publish: true })).toBe('scheduled');
    await q.promote(a);
    const again = await q.leases().claim(60_000);
    if (again === undefined) throw new Error('nothing claimed');
    await q.leases().delay(again, 60_000, { publish: true });
    const { id: b } = await q.enqueue('b', { delayMs: 60_000 });
    await q.remove(b);
    const { id: c } = await q.enqueue('c');
    await q.leases().claim(1);
    await until(async () => (await q.maintenance().sweepStalled({ maxStalled: 1 })).dead.length === 1, 'the lapsed lease swept');
    const trail: [string, string, Readonly<Record<string, string>>][] = [];
    for await (const { event } of reader) {
      trail.push([event.event, event.job, event.fields]);
      if (event.event === 'stalled') break;
    }
    expect(trail.map(([name, job, fields]) => [name, job, name === 'delayed' && job === a ? Object.keys(fields) : fields])).toEqual([
      ['failed', a, { outcome: 'scheduled' }],
      ['delayed', a, ['runAt']],
      ['delayed', b, { delayMs: '60000' }],
      ['removed', b, { state: 'scheduled' }],
      ['stalled', c, { outcome: 'dead' }],
    ]);
    await q.close();
  });

  it('refuses a bad start before any read', async () => {
    const q = await open<string>();
    expect(() => q.journal({ from: { after: 'nope' } })).toThrow(/from/);
    expect(() => q.journal({ count: 0 })).toThrow(/count/);
    await q.close();
  });
});

describe('events on a 3-master cluster', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startCluster({ masters: 3 });
  }, 60_000);
  afterAll(async () => {
    await cluster.stop();
  });

  // Each step is bounded and named: once (CI beside two CPU hogs, 2026-12-03) this test ran past
  // vitest's 60 s where it takes 0.3 s, and the timeout did not say which step waited. The bounds
  // are a hang's, not a speed.
  it('publishes and journals in the queue slot, and a resumed reader catches up', async () => {
    const q = await within(Queue.open<string>(`lifecycle-cluster-${String(process.pid)}`, { connect: { cluster: cluster.seeds, strictKeys: true } }), 'Queue.open');
    await within(q.setEvents({ chatty: true, journal: 1000 }), 'setEvents');
    const events = await within(q.events(), 'q.events()');
    const { id } = await within(q.enqueue('c', { dedupId: 'c-1' }), 'the first enqueue');
    await within(q.enqueue('c', { dedupId: 'c-1' }), 'the deduplicated enqueue');
    const done = q.waitUntilFinished(id, { timeoutMs: 45_000, events });
    const worker = await within(Worker.start(q, () => undefined, FAST), 'Worker.start');
    await done;
    await within(worker.close(), 'worker.close()');
    const names: string[] = [];
    const reading = async (): Promise<void> => {
      for await (const { event } of q.journal({ from: 'head', blockMs: 100 })) {
        names.push(event.event);
        if (event.event === 'completed') break;
      }
    };
    await within(reading(), 'the journal read up to completed').catch((error: unknown) => {
      throw new Error(`${String(error)}; read so far: ${names.join(', ')}`);
    });
    expect(names).toEqual(['waiting', 'deduplicated', 'active', 'drained', 'completed']);
    await within(events.close(), 'events.close()');
    await within(q.close(), 'q.close()');
  }, 300_000);
});
