import { uniqueName, useRedis, waitFor } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, EventsListener, encodeEvent, mintId, queueKeys, type LifecycleEvent, type LifecycleEventOf } from './support.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect((await useRedis()).url);
});
afterAll(async () => {
  await conn.close();
});

describe('EventsListener', () => {
  it('routes each event to the listeners of its name, every parsed one to *, every message to raw', async () => {
    const queue = uniqueName('evl');
    const events = await EventsListener.open(conn, queue);
    const completed: LifecycleEventOf<'completed'>[] = [];
    const all: LifecycleEvent[] = [];
    const raw: string[] = [];
    events.on('completed', (e) => completed.push(e));
    events.on('*', (e) => all.push(e));
    events.on('raw', ({ name }) => raw.push(name));
    try {
      const job = mintId('JOB');
      await conn.command('PUBLISH', events.channel, encodeEvent('completed', job));
      await conn.command('PUBLISH', events.channel, encodeEvent('failed', job, { outcome: 'dead' }));
      await conn.command('PUBLISH', events.channel, 'not json');
      await waitFor(() => raw.length === 3);
      expect(completed).toEqual([{ event: 'completed', job, fields: {} }]);
      expect(all.map((e) => e.event)).toEqual(['completed', 'failed']);
      expect(raw).toEqual(['completed', 'failed', 'unknown']);
      expect(events.stats()).toEqual({ messages: 3, subscribes: 1 });
      expect(events.channel).toBe(queueKeys(queue).events);
    } finally {
      await events.close();
    }
  });

  it('off really removes a listener, once fires once, and close drops the subscription', async () => {
    const events = await EventsListener.open(conn, uniqueName('evl'));
    const kept: string[] = [];
    const dropped: string[] = [];
    const onces: string[] = [];
    const drop = (e: LifecycleEvent): void => void dropped.push(e.job);
    events.on('delayed', drop);
    events.on('delayed', (e) => kept.push(e.job));
    events.once('delayed', (e) => onces.push(e.job));
    const [first, second] = [mintId('JOB'), mintId('JOB')];
    await conn.command('PUBLISH', events.channel, encodeEvent('delayed', first));
    await waitFor(() => kept.length === 1);
    expect(events.off('delayed', drop)).toBe(true);
    await conn.command('PUBLISH', events.channel, encodeEvent('delayed', second));
    await waitFor(() => kept.length === 2);
    expect(dropped).toEqual([first]);
    expect(onces).toEqual([first]);
    await events.close();
    expect(events.listenerCount()).toBe(0);
    await waitFor(async () => Number(((await conn.command('PUBSUB', 'NUMSUB', events.channel)) as unknown[])[1]) === 0);
  });
});
