/**
 * The streams user's app (`apps/streams-user/main.ts`) runs as written, against a real server, and
 * does what its output says: day one (a bus without a queue, appends, a window read, a group of two
 * consumers with an ack, a redelivery and a dead letter), then every recipe of
 * docs/guide/bus-recipes.md; it exits 0 on its own.
 */
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runApp } from './run-app.js';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server.stop();
});

describe('apps/streams-user', () => {
  it('runs a streams user through day one and every bus recipe', async () => {
    const run = await runApp('apps/streams-user/main.ts', server.url);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = run.stdout;
    const orders = /^stream key: emq:\{(orders-\d+)\}:stream:(orders-\d+)$/m.exec(out);
    expect(orders?.[1]).toBe(orders?.[2]);
    const ids = /^appended 5 records: (.+)$/m.exec(out)?.[1]?.split(' ') ?? [];
    expect(ids).toHaveLength(5);
    for (const id of ids) expect(id).toMatch(/^EVT[0-9A-Za-z]{11}$/);
    expect(out).toContain(`window [t0, t1]: 5 records, first ${ids[0] ?? ''} = {"order":"o1","amount":"10.00"}`);
    expect(out).toContain(`read { count: 2 }: o1@${ids[0] ?? ''} o2@${ids[1] ?? ''}`);
    expect(out).toMatch(/^acked: o1 o2 o3 o4$/m);
    expect(out).toMatch(/^billing-a handled: /m);
    expect(out).toContain('o3 redelivered (attempt 2) and acked');
    expect(out).toMatch(new RegExp(`^dead letter: o5 id=${ids[4] ?? ''} group=billing attempts=2 reason=Error: card declined$`, 'm'));
    expect(out).toMatch(/^lag billing: undelivered=0 pending=0$/m);

    // docs/guide/bus-recipes.md, in its order, after day one.
    const recipes = out.slice(out.indexOf('msgId:')).trim().split('\n');
    expect(recipes).toEqual([
      'msgId: first duplicate=false, retry duplicate=true, same id true',
      'msgIds in a batch: duplicates false, true, false',
      'msgId: records in the stream 3',
      'orderBy: alice 1 2 3 4, bob 1 2 3 4; never more than 2 at once true',
      'groups: openGroup created, again exists',
      'groups: paused true, handled 0',
      'groups: after resume handled 2',
      'groups: after reset to head handled 4; deleted true',
      'dead letter: ada@example.com group=sender reason=mailbox full',
      'redrive: redriven 1, left 0; delivered bob@example.com, ada@example.com; dead letters now 0',
      expect.stringMatching(/^consumeBatch: 6 entries in [1-6] batch\(es\) of at most 500; pending after 0$/),
      'tail from new: login, stop',
      'archive watermark: true, cleared true',
      'done',
    ]);

    // No queue was invented: every key is a stream's (under its own hashtag) or the fence.
    const raw = server.client();
    try {
      const keys = (await raw.keys('*')).sort();
      expect(keys).toContain(`emq:{${orders?.[1] ?? ''}}:stream:${orders?.[1] ?? ''}:dead`);
      for (const key of keys) expect(key).toMatch(/^(emq:\{([a-z]+-\d+)\}:stream:\2(:[a-z:]+)?|\{emq\}:version)$/);
    } finally {
      raw.disconnect();
    }
  }, 90_000);
});
