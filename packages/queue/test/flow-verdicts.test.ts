/**
 * What `addFlow` answers names jobs that exist: a retry of a flow by id is answered as it landed,
 * but a flow whose parent id (or a child id) already names a job is refused, nothing written, when
 * the answer would name ids no job holds (ids minted for the refused call), and a held parent is
 * never given a child it did not count.
 */
import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, InvalidArgumentError, mintId, type JobId } from '@echo/protocol/queue';
import { Queue, type FlowResult } from '../src/index.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
}, 60_000);
afterAll(async () => {
  await conn.close();
});

const ids = (r: FlowResult): string[] => [r.id, ...r.children.flatMap(ids)];
const open = (): Promise<Queue<string>> => Queue.open<string>(uniqueName('fv'), { connection: conn });
const keyCount = async (q: Queue<string>): Promise<number> => ((await conn.command('KEYS', `emq:{${q.name}}:*`)) as string[]).length;

describe('a flow answer names jobs that exist', () => {
  it('same queue: a retry by id answers the flow; a reused parent id with minted children is refused, nothing written', async () => {
    const q = await open();
    const parent = mintId('JOB') as JobId;
    const child = mintId('JOB') as JobId;
    const first = await q.addFlow({ parent: { payload: 'p', id: parent }, children: [{ payload: 'c', id: child }] });
    expect(await q.addFlow({ parent: { payload: 'p', id: parent }, children: [{ payload: 'c', id: child }] })).toEqual(first);

    const before = await keyCount(q);
    const refused = await q.addFlow({ parent: { payload: 'p', id: parent }, children: [{ payload: 'c' }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidArgumentError);
    // A child id that names a job, under a new parent: refused too, rather than answer a parent that is not there.
    await expect(q.addFlow({ parent: { payload: 'p' }, children: [{ payload: 'c', id: child }] })).rejects.toThrow(InvalidArgumentError);
    expect(await keyCount(q)).toBe(before);
    expect(await q.counts('pending', 'awaiting_children')).toEqual({ pending: 1, awaiting_children: 1 });
  });

  it('across queues: a reused parent id with minted children is refused before a child is linked to it', async () => {
    const q = await open();
    const other = await open();
    const parent = mintId('JOB') as JobId;
    const spec = { parent: { payload: 'p', id: parent }, children: [{ payload: 'c', queue: other.name }] };
    const first = await q.addFlow(spec);
    for (const id of ids(first)) expect(await conn.command('EXISTS', `emq:{${id === parent ? q.name : other.name}}:job:${id}`)).toBe(1);

    await expect(q.addFlow(spec)).rejects.toThrow(InvalidArgumentError);
    expect(await other.counts('pending')).toEqual({ pending: 1 });
    expect(await q.dependencies(parent)).toBe(1);

    // A retry that names every node completes the flow as it stood.
    const named = { parent: { payload: 'p', id: parent }, children: [{ payload: 'c', queue: other.name, id: first.children[0]?.id as JobId }] };
    expect(await q.addFlow(named)).toEqual(first);
    expect(await other.counts('pending')).toEqual({ pending: 1 });
  });
});
