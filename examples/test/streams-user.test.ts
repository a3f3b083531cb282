/**
 * The streams user's day one (`apps/streams-user.ts`) runs as written, against a real server, and
 * does what its output says: a bus without a queue, appends, a window read, a group of two
 * consumers with an ack, a redelivery and a dead letter; it exits 0 on its own.
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

describe('apps/streams-user.ts', () => {
  it('runs a streams user through append, window read, a consumer group and dead letters', async () => {
    const run = await runApp('apps/streams-user.ts', server.url);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out).toContain('stream key: emq:{orders}:stream:orders');
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
    expect(out).toMatch(/done\n$/);
    // No queue was invented: the stream and its dead letters under the stream's own hashtag, and the fence.
    const raw = server.client();
    try {
      expect((await raw.keys('*')).sort()).toEqual(['emq:{orders}:stream:orders', 'emq:{orders}:stream:orders:dead', '{emq}:version']);
    } finally {
      raw.disconnect();
    }
  });
});
