import { Connection } from '@echo/protocol';
import { Queue } from '@echo/queue';
import { uniqueName, useRedis } from '@echo/testkit';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard, WRITE_HEADER, type JobListView, type QueueSummary } from '../src/index.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

const write = { method: 'POST', headers: { [WRITE_HEADER]: '1' } };

async function deadQueue(): Promise<{ queue: Queue<string>; id: string }> {
  const queue = await Queue.open<string>(uniqueName('api'), { connection: conn });
  await queue.enqueue('payload');
  const job = await queue.leases().claim(30_000);
  await queue.leases().retry(job!, 0, 1, 'boom');
  return { queue, id: job!.id };
}

describe('dashboard API', () => {
  it('serves the page under a trailing slash and the queues as JSON', async () => {
    const { queue } = await deadQueue();
    const app = createDashboard({ connection: conn });
    const page = await app.request('/');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<table id="queues">');
    const body = (await (await app.request('/api/queues')).json()) as { queues: QueueSummary[] };
    expect(body.queues.find((q) => q.name === queue.name)?.counts).toMatchObject({ dead: 1, failed: 1 });
  });

  it('mounts into a host app under a path', async () => {
    const { queue, id } = await deadQueue();
    for (const strict of [true, false]) {
      const app = new Hono({ strict });
      app.route('/admin/queues', createDashboard({ connection: conn }));
      const bare = await app.request('/admin/queues');
      expect(bare.status).toBe(302);
      expect(bare.headers.get('location')).toBe('/admin/queues/');
      expect((await app.request('/admin/queues/')).status).toBe(200);
      expect((await app.request('/admin/queues/elsewhere/')).status).toBe(404);
    }
    const host = new Hono();
    host.route('/admin/queues', createDashboard({ connection: conn }));
    const list = (await (await host.request(`/admin/queues/api/queues/${queue.name}/jobs?state=dead`)).json()) as JobListView;
    expect(list.jobs.map((j) => [j.id, j.lastError, j.attempts])).toEqual([[id, 'boom', 1]]);
    expect((await host.request(`/admin/queues/api/queues/${queue.name}/jobs/${id}/retry`, write)).status).toBe(200);
    expect(await queue.getState(id)).toBe('pending');
  });

  it('refuses writes in read-only mode and without the write header, changing nothing', async () => {
    const { queue, id } = await deadQueue();
    const readOnly = createDashboard({ connection: conn, readOnly: true });
    expect(await (await readOnly.request('/')).text()).toContain('data-testid="read-only"');
    expect((await readOnly.request(`/api/queues/${queue.name}/jobs/${id}/retry`, write)).status).toBe(403);
    expect((await readOnly.request(`/api/queues/${queue.name}/jobs?state=dead`)).status).toBe(200);
    const open = createDashboard({ connection: conn });
    expect((await open.request(`/api/queues/${queue.name}/pause`, { method: 'POST' })).status).toBe(403);
    expect(await queue.getState(id)).toBe('dead');
    expect((await (await open.request(`/api/queues/${queue.name}`)).json()) as QueueSummary).toMatchObject({ paused: false });
  });

  it('asks the auth hook on every request and sends its own response', async () => {
    const { queue, id } = await deadQueue();
    const seen: string[] = [];
    const app = createDashboard({
      connection: conn,
      authorize: (request, access) => {
        seen.push(access);
        if (request.headers.get('authorization') !== 'Bearer ops') return new Response('who are you', { status: 401, headers: { 'www-authenticate': 'Bearer' } });
        return access === 'read';
      },
    });
    const anonymous = await app.request('/api/queues');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    const auth = { authorization: 'Bearer ops' };
    expect((await app.request('/api/queues', { headers: auth })).status).toBe(200);
    const refused = await app.request(`/api/queues/${queue.name}/jobs/${id}/remove`, { method: 'POST', headers: { ...auth, [WRITE_HEADER]: '1' } });
    expect(refused.status).toBe(403);
    expect(seen).toEqual(['read', 'read', 'write']);
    expect(await queue.getState(id)).toBe('dead');
  });

  it('answers typed errors with their status', async () => {
    const { queue, id } = await deadQueue();
    const app = createDashboard({ connection: conn });
    const get = async (path: string, init?: RequestInit): Promise<[number, unknown]> => {
      const res = await app.request(path, init);
      return [res.status, ((await res.json()) as { error: string }).error];
    };
    expect(await get(`/api/queues/${queue.name}/jobs?state=waiting`)).toEqual([400, 'InvalidArgumentError']);
    expect(await get(`/api/queues/${queue.name}/jobs?limit=5000`)).toEqual([400, 'InvalidArgumentError']);
    expect(await get('/api/queues/bad%20name')).toEqual([400, 'InvalidNameError']);
    expect(await get(`/api/queues/${queue.name}/jobs/nope`)).toEqual([400, 'MalformedIdError']);
    await queue.reprocess(id);
    expect(await get(`/api/queues/${queue.name}/jobs/${id}/retry`, write)).toEqual([409, 'StateError']);
    await queue.remove(id);
    expect(await get(`/api/queues/${queue.name}/jobs/${id}`)).toEqual([404, 'GoneError']);
  });
});
