/**
 * What does not exist is named for what it is: a missing stream is a missing stream, an unknown
 * queue is an unknown queue (not a missing job), each with exit status 3 and nothing written.
 */
import { Bus } from '@echo/bus';
import { Connection } from '@echo/protocol';
import { Queue } from '@echo/queue';
import { uniqueName, useRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, main, type CliIo } from '../src/index.js';

let url: string;
let conn: Connection;
beforeAll(async () => {
  url = (await useRedis()).url;
  conn = await Connection.connect({ url });
});
afterAll(async () => {
  await conn.close();
});

async function emq(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t), env: { REDIS_URL: url }, isTty: false, signal: new AbortController().signal };
  const code = await main(args, io);
  return { code, out, err };
}

/** Every key of queue `name` on the server (all share its hash tag). */
async function keysOf(name: string): Promise<string[]> {
  return (await conn.command('KEYS', `emq:{${name}}:*`)) as string[];
}

describe('emq on what does not exist', () => {
  it('dlq, redrive and lag on a missing stream say the stream does not exist', async () => {
    const name = uniqueName('bus');
    await (await Bus.open(name, { connection: conn })).stream('refunds').append({ order: 'r1' });
    for (const args of [['dlq', name, 'nowhere'], ['redrive', name, 'nowhere', '--all'], ['lag', name, 'nowhere']]) {
      const ran = await emq(args);
      expect(ran, args.join(' ')).toEqual({ code: EXIT.notFound, out: '', err: `emq: no stream named "nowhere" in "${name}" on this server (emq streams lists them)\n` });
    }
    // A stream in a queue nobody runs reads the same.
    expect((await emq(['dlq', uniqueName('none'), 'refunds'])).err).toMatch(/^emq: no stream named "refunds" in "none-\S+" on this server/);
    expect((await emq(['dlq', name, 'nowhere', '--json'])).code).toBe(EXIT.notFound);
  });

  it('job and retry on an unknown queue say the queue does not exist, and write nothing', async () => {
    const real = await Queue.open<string>(uniqueName('real'), { connection: conn });
    const { id } = await real.enqueue('x');
    const ghost = uniqueName('ghost');
    const expected = { code: EXIT.notFound, out: '', err: `emq: no queue named "${ghost}" on this server (emq queues lists them)\n` };
    expect(await emq(['job', ghost, id])).toEqual(expected);
    expect(await emq(['retry', ghost, id])).toEqual(expected);
    expect(await emq(['retry', ghost, '--all-dead'])).toEqual(expected);
    expect(await keysOf(ghost)).toEqual([]);
    // The job itself, asked of its own queue, is there.
    expect((await emq(['job', real.name, id])).code).toBe(EXIT.ok);
  });

  it('a queue known only by a key emq queues lists it by (completed jobs kept) is found', async () => {
    const queue = await Queue.open<string>(uniqueName('kept'), { connection: conn, keep: { completed: { count: 10 } } });
    const { id } = await queue.enqueue('r');
    const job = await queue.leases().claim(30_000);
    if (job === undefined) throw new Error('nothing to claim');
    await queue.leases().complete(job, 'done');
    // Only the retention set and the counters stay: no meta, no pending.
    await conn.command('DEL', queue.keys.meta, queue.keys.metricsCompleted, queue.keys.metricsFailed);
    expect((await emq(['queues'])).out).toMatch(new RegExp(`^${queue.name}\\s`, 'm'));
    expect((await emq(['stats', queue.name, '--interval', '50'])).code).toBe(EXIT.ok);
    const shown = await emq(['job', queue.name, id]);
    expect(shown.code).toBe(EXIT.ok);
    expect(shown.out).toMatch(/^position:\s+completed$/m);
  });
});
