/**
 * The dashboard's entry points refuse an option they do not know, naming it (and the option meant,
 * for the usual spellings), before they connect, listen or read anything.
 */
import { Connection, UnknownOptionError } from '@echo/protocol';
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, createDashboard, prometheusMetrics, serveDashboard, serverMetricFamilies, WRITE_HEADER } from '../src/index.js';

let server: RedisServer;
let conn: Connection;
beforeAll(async () => {
  server = await startRedis();
  conn = await Connection.connect({ url: server.url });
});
afterAll(async () => {
  await conn.close();
  await server.stop();
});

async function keyspace(): Promise<string[]> {
  return ((await conn.command('KEYS', '*')) as string[]).sort();
}

type Loose = Record<string, unknown>;

/** [label, the call, the refused key, a phrase of the hint (undefined: no hint)]. */
const rows: readonly [string, () => unknown, string, string | undefined][] = [
  ['createDashboard readonly', () => createDashboard({ connection: conn, readonly: true } as Loose as never), 'readonly', 'readOnly'],
  ['createDashboard connect', () => createDashboard({ connection: conn, connect: server.url } as Loose as never), 'connect', 'serveDashboard takes connect'],
  ['createDashboard basePath', () => createDashboard({ connection: conn, basePath: '/admin' } as Loose as never), 'basePath', 'app.route'],
  ['createDashboard typo', () => createDashboard({ connection: conn, polMs: 500 } as Loose as never), 'polMs', undefined],
  ['createDashboard namespace', () => createDashboard({ connection: conn, namespace: [] } as Loose as never), 'namespace', undefined],
  ['serveDashboard connection', () => serveDashboard({ connect: server.url, connection: conn } as Loose as never), 'connection', 'createDashboard({ connection })'],
  ['serveDashboard hostname', () => serveDashboard({ connect: server.url, hostname: '0.0.0.0' } as Loose as never), 'hostname', 'host here'],
  ['serveDashboard connect.tls', () => serveDashboard({ connect: { url: server.url, tls: true } as Loose }), 'tls', 'no TLS option'],
  ['prometheusMetrics queue', () => prometheusMetrics(Admin.over(conn), { queue: 'orders' } as Loose), 'queue', 'queues here'],
  ['serverMetricFamilies prefix', () => serverMetricFamilies(Admin.over(conn), { prefix: 'app_' } as Loose), 'prefix', 'metric names are fixed'],
];

describe('strict dashboard options', () => {
  it.each(rows)('%s is refused', async (_label, call, key, hint) => {
    const before = await keyspace();
    const clients = await conn.command('CLIENT', 'LIST');
    let error: unknown;
    try {
      await call();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnknownOptionError);
    const refused = error as UnknownOptionError;
    expect(refused.option).toBe(key);
    if (hint === undefined) expect(refused.message).toContain('known:');
    else expect(refused.hint).toContain(hint);
    expect(await keyspace()).toEqual(before);
    // Nothing connected either: the same clients as before.
    expect(String(await conn.command('CLIENT', 'LIST')).split('\n').length).toBe(String(clients).split('\n').length);
  });
});

/** [label, the API path, the body, the refused key, a phrase of the hint (undefined: no hint)]. */
const bodies: readonly [string, string, Loose, string, string | undefined][] = [
  ['bulk jobs', 'api/queues/orders/bulk', { action: 'retry', jobs: ['JOB0SUl5nOu62C'] }, 'jobs', 'ids here'],
  ['bulk jobIds', 'api/queues/orders/bulk', { action: 'retry', jobIds: ['JOB0SUl5nOu62C'] }, 'jobIds', 'ids here'],
  ['bulk typo', 'api/queues/orders/bulk', { action: 'retry', ids: ['JOB0SUl5nOu62C'], force: true }, 'force', undefined],
  ['redrive records', 'api/streams/orders/audit/redrive', { records: ['1-0'] }, 'records', '{ ids }'],
  ['redrive id', 'api/streams/orders/audit/redrive', { id: 'EVT0SUl5nX8SoS' }, 'id', 'a list'],
  ['cache delete keys', 'api/namespaces/sessions/delete', { keys: ['s1'] }, 'keys', 'one entry per request'],
  ['cache delete tags', 'api/namespaces/sessions/delete', { tags: ['a'] }, 'tags', 'one tag per request'],
];

describe('strict dashboard write bodies', () => {
  it.each(bodies)('%s is refused with 400, writing nothing', async (_label, path, body, key, hint) => {
    const before = await keyspace();
    const res = await createDashboard({ connection: conn }).request(`/${path}`, { method: 'POST', headers: { [WRITE_HEADER]: '1', 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(400);
    const reply = (await res.json()) as { error: string; message: string };
    expect(reply.error).toBe('UnknownOptionError');
    expect(reply.message).toContain(`.${key}: is not an option here`);
    if (hint === undefined) expect(reply.message).toContain('known:');
    else expect(reply.message).toContain(hint);
    expect(await keyspace()).toEqual(before);
  });
});
