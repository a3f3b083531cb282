import { Connection, parseKey } from '@echo/protocol';
import { uniqueName, useRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from '../src/index.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

/** Every job-scoped key of `queue`, as `id` or `id:sub`, after checking nothing is unclassified. */
async function jobKeys(queue: Queue): Promise<string[]> {
  const keys = (await conn.command('KEYS', `emq:{${queue.name}}:*`)) as string[];
  const out: string[] = [];
  for (const key of keys) {
    const parsed = parseKey(key);
    expect(parsed.kind, key).not.toBe('unclassified');
    if (parsed.kind === 'job') out.push(parsed.sub === null ? parsed.id : `${parsed.id}${parsed.sub}`);
  }
  return out.sort();
}

describe('drain and flows', () => {
  it('deletes a parent whose children were all drained, up a nested tree, and leaves no orphan', async () => {
    const queue = await Queue.open<string>(uniqueName('tidy'), { connection: conn });
    const flow = await queue.addFlow({
      parent: { payload: 'root' },
      children: [{ payload: 'a' }, { payload: 'mid', children: [{ payload: 'leaf' }] }],
    });
    expect(await queue.drain()).toBe(4);
    expect(await queue.getState(flow.id)).toBe('absent');
    expect(await jobKeys(queue)).toEqual([]);
  });

  it('keeps a parent with a child still running; it runs once that child completes', async () => {
    const queue = await Queue.open<string>(uniqueName('tidy'), { connection: conn });
    const flow = await queue.addFlow({ parent: { payload: 'root' }, children: [{ payload: 'a' }, { payload: 'b' }] });
    const running = await queue.claim(30_000);
    if (running === undefined) throw new Error('nothing claimed');
    expect(await queue.drain()).toBe(1);
    expect(await queue.getState(flow.id)).toBe('awaiting_children');
    expect(await queue.dependencies(flow.id)).toBe(1);
    await queue.complete(running, 'done');
    expect(await queue.getState(flow.id)).toBe('pending');
    const parent = await queue.claim(30_000);
    expect(parent?.id).toBe(flow.id);
    expect(await queue.childrenValues(flow.id)).toEqual({ [running.id]: 'done' });
  });
});
