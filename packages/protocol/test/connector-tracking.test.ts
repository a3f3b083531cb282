import { rejection, startRedis, uniqueName, waitFor, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, FENCE_KEY, INVALIDATE_CHANNEL, InvalidArgumentError, openTracking, PermissionError, VersionFenceError, WIRE_VERSION } from './support.js';

// Its own server: these tests kill connections and rewrite the fence.
let server: RedisServer;
let conn: Connection;
beforeAll(async () => {
  server = await startRedis();
  conn = await Connection.connect(server.url);
});
afterAll(async () => {
  await conn.close();
  await server.stop();
});

/** The server's `CLIENT LIST` line for the one client named `name`. */
async function clientLine(name: string): Promise<string> {
  const line = String(await conn.command('CLIENT', 'LIST'))
    .split('\n')
    .find((l) => l.includes(` name=${name} `));
  if (line === undefined) throw new Error(`no client named ${name}`);
  return line;
}

/** How many `CLIENT TRACKING` calls the server has run. */
async function trackingCalls(): Promise<number> {
  const stats = String(await conn.command('INFO', 'commandstats'));
  return Number(/cmdstat_client\|tracking:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

describe('openTracking', () => {
  it('reports writes under its prefixes by anyone, and again after a reconnect re-armed it', async () => {
    const name = uniqueName('trk');
    const prefix = `ecc:{${name}}:`;
    const seen: (readonly string[] | null)[] = [];
    const tracking = await openTracking(conn, [prefix], (keys) => seen.push(keys), { name });
    const events: string[] = [];
    tracking.on('lost', () => events.push('lost'));
    tracking.on('armed', (n) => events.push(`armed ${n}`));
    try {
      expect(tracking.armed).toBe(true);
      expect(tracking.arms).toBe(1);
      const line = await clientLine(name);
      expect(line).toContain('resp=2');
      expect(line).toContain('flags=Pt');
      expect(Number(((await conn.command('PUBSUB', 'NUMSUB', INVALIDATE_CHANNEL)) as unknown[])[1])).toBe(1);

      await conn.command('SET', `${prefix}a`, '1');
      await conn.command('SET', `ecc:{other}:a`, '1');
      await waitFor(() => seen.length === 1);
      expect(seen).toEqual([[`${prefix}a`]]);

      await conn.command('CLIENT', 'KILL', 'ID', /^id=(\d+) /.exec(line)?.[1] ?? '');
      await waitFor(() => tracking.arms === 2, { what: 'tracking to re-arm' });
      expect(events).toEqual(['lost', 'armed 2']);
      expect(tracking.armed).toBe(true);
      expect(await trackingCalls()).toBe(2);

      await conn.command('DEL', `${prefix}a`);
      await waitFor(() => seen.length === 2);
      expect(seen[1]).toEqual([`${prefix}a`]);
    } finally {
      await tracking.close();
    }
    expect(tracking.armed).toBe(false);
    await waitFor(async () => !String(await conn.command('CLIENT', 'LIST')).includes(` name=${name} `), { what: 'the tracking connection to go' });
  });

  it('fails with the typed refusal when the server will not turn tracking on', async () => {
    const user = uniqueName('acl');
    await conn.command('ACL', 'SETUSER', user, 'on', '>pw', '~*', '&*', '+@all', '-client');
    const limited = await Connection.connect({ host: server.host, port: server.port, username: user, password: 'pw' });
    try {
      expect(await rejection(openTracking(limited, ['ecc:{x}:'], () => undefined))).toBeInstanceOf(PermissionError);
    } finally {
      await limited.close();
      await conn.command('ACL', 'DELUSER', user);
    }
  });

  it('checks its prefixes before any I/O', async () => {
    await expect(openTracking(conn, [], () => undefined)).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(openTracking(conn, [''], () => undefined)).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it('runs the version fence first: a foreign fence refuses it and tracking is never turned on', async () => {
    const before = await trackingCalls();
    await conn.command('SET', FENCE_KEY, 'echomq:4.0.0');
    try {
      expect(await rejection(openTracking(conn, ['ecc:{y}:'], () => undefined))).toBeInstanceOf(VersionFenceError);
      expect(await trackingCalls()).toBe(before);
    } finally {
      await conn.command('SET', FENCE_KEY, WIRE_VERSION);
    }
  });
});
