import { rejection, startRedis, uniqueName, useRedis, waitFor, type RedisTarget } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, ConnectionClosedError, ConnectionLostError, InvalidArgumentError, reads, type PubSubMessage } from './support.js';

let target: RedisTarget;
let conn: Connection;

beforeAll(async () => {
  target = await useRedis();
  conn = await Connection.connect(target.url);
});
afterAll(async () => {
  await conn.close();
});

/** The server-side id of the one client named `name`. */
async function clientId(name: string): Promise<string> {
  const list = String(await conn.command('CLIENT', 'LIST'));
  const id = /^id=(\d+) /.exec(list.split('\n').find((l) => l.includes(` name=${name} `)) ?? '')?.[1];
  if (id === undefined) throw new Error(`no client named ${name}`);
  return id;
}

/** Whether the client named `name` is blocked in BLPOP right now. */
async function blocked(name: string): Promise<boolean> {
  return String(await conn.command('CLIENT', 'LIST', 'ID', await clientId(name))).includes('cmd=blpop');
}

async function numsub(channel: string): Promise<number> {
  return Number(((await conn.command('PUBSUB', 'NUMSUB', channel)) as unknown[])[1]);
}

describe('a closed Connection', () => {
  it('exposes neither its driver client nor its options (nor the password in them)', async () => {
    const user = uniqueName('acl');
    const password = `pw-${uniqueName('secret')}`;
    await conn.command('ACL', 'SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all');
    const own = await Connection.connect({ host: target.host, port: target.port, username: user, password });
    try {
      expect('client' in own).toBe(false);
      expect('options' in own).toBe(false);
      expect(Object.keys(own)).toEqual([]);
      expect(JSON.stringify(own)).not.toContain(password);
      expect(own.isCluster).toBe(false);
      expect(typeof own.strictKeys).toBe('boolean');
    } finally {
      await own.close();
      await conn.command('ACL', 'DELUSER', user);
    }
  });

  it('answers its masters, each taking commands through the gate', async () => {
    const masters = conn.masters();
    expect(masters).toHaveLength(1);
    expect(masters[0]?.address).toBe(`${target.host}:${target.port}`);
    expect(await masters[0]?.command('PING')).toBe('PONG');
  });
});

describe('a batch (Connection.pipeline)', () => {
  it('answers every member in order, a failing member on its own, and reaches the server in one read', async () => {
    // A server of its own: the read counter is server-wide.
    const server = await startRedis();
    const own = await Connection.connect(server.url);
    try {
      const key = uniqueName('batch');
      await own.command('SET', `${key}:text`, 'text');
      const readsSoFar = async (): Promise<number> => Number(/total_reads_processed:(\d+)/.exec(String(await own.command('INFO', 'stats')))?.[1]);
      const before = await readsSoFar();
      const results = await own.pipeline([...Array.from({ length: 40 }, () => ['INCR', `${key}:n`] as const), ['INCR', `${key}:text`], ['GET', `${key}:text`]]);
      const after = await readsSoFar();
      expect(results.slice(0, 40).map((r) => (r.ok ? r.value : r.error))).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(results[40]?.ok).toBe(false);
      expect(results[41]).toEqual({ ok: true, value: 'text' });
      // The batch's 42 commands are one read (sent one by one they are dozens); the second INFO is the other.
      expect(after - before).toBeLessThanOrEqual(3);
    } finally {
      await own.close();
      await server.stop();
    }
  });
});

describe('subscribe', () => {
  it('delivers Buffers byte for byte and text as strings, and re-subscribes after CLIENT KILL', async () => {
    const name = uniqueName('psub');
    const own = await conn.duplicate(name);
    const [bin, txt] = [`${name}.bin`, `${name}.txt`];
    const bytes: Buffer[] = [];
    const texts: PubSubMessage[] = [];
    try {
      const binary = await own.subscribe([bin], { buffers: true, onMessage: ({ payload }) => bytes.push(payload) });
      const text = await own.subscribe([txt], { onMessage: (m) => texts.push(m) });
      const confirmations: number[] = [];
      binary.on('subscribed', (n) => confirmations.push(n));
      expect(binary.confirmations).toBe(1);

      const raw = Buffer.from([0xff, 0x00, 0xfe, 0x41]);
      await conn.command('PUBLISH', bin, raw);
      await conn.command('PUBLISH', txt, 'héllo');
      await waitFor(() => bytes.length === 1 && texts.length === 1);
      expect(Buffer.compare(bytes[0] as Buffer, raw)).toBe(0);
      expect(texts[0]).toEqual({ channel: txt, payload: 'héllo' });

      const killed = await clientId(name);
      await conn.command('CLIENT', 'KILL', 'ID', killed);
      await waitFor(() => confirmations.length === 1 && text.confirmations === 2, { what: 'both subscriptions re-issued' });
      expect(confirmations).toEqual([2]);
      expect(own.stats()).toMatchObject({ reconnects: 1, fences: 2 });

      await conn.command('PUBLISH', bin, Buffer.from([0x00]));
      await conn.command('PUBLISH', txt, 'again');
      await waitFor(() => bytes.length === 2 && texts.length === 2);
      expect([...(bytes[1] as Buffer)]).toEqual([0]);
      expect(texts[1]?.payload).toBe('again');
    } finally {
      await own.close();
    }
  });

  it('keeps a channel on the server until its last subscription leaves; off and unsubscribe stop delivery', async () => {
    const own = await conn.duplicate();
    const channel = uniqueName('shared');
    const first: string[] = [];
    const second: string[] = [];
    try {
      const a = await own.subscribe([channel]);
      const b = await own.subscribe([channel], { onMessage: ({ payload }) => second.push(payload) });
      const listener = ({ payload }: PubSubMessage): void => void first.push(payload);
      a.on('message', listener);
      await conn.command('PUBLISH', channel, 'one');
      await waitFor(() => first.length === 1 && second.length === 1);

      expect(a.off('message', listener)).toBe(true);
      expect(a.off('message', listener)).toBe(false);
      await a.unsubscribe();
      expect(a.active).toBe(false);
      expect(await numsub(channel)).toBe(1);
      await conn.command('PUBLISH', channel, 'two');
      await waitFor(() => second.length === 2);
      expect(first).toEqual(['one']);

      await b.unsubscribe();
      await waitFor(async () => (await numsub(channel)) === 0, { what: 'the channel to leave the server' });
    } finally {
      await own.close();
    }
  });

  it('checks its channels before any I/O', async () => {
    const before = conn.stats().commands;
    await expect(conn.subscribe([])).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(conn.subscribe([''])).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(conn.stats().commands).toBe(before);
  });
});

/** The queue's wake read (`BLPOP`), sent on `c`. */
function pop(c: Connection, key: string, timeoutMs: number): Promise<string | null> {
  return reads.sendRead(c, reads.queue.wake({ key, timeoutMs }));
}

describe('the wake read (BLPOP)', () => {
  it('pops what is pushed, answers null on timeout, and refuses bad arguments', async () => {
    const name = uniqueName('bpop');
    const own = await conn.duplicate(name);
    const key = `{${name}}:wake`;
    try {
      const popped = pop(own, key, 5000);
      await waitFor(() => blocked(name), { what: 'the BLPOP to block' });
      await conn.command('RPUSH', key, 'token');
      expect(await popped).toBe('token');
      expect(await pop(own, key, 20)).toBeNull();
      expect(() => reads.queue.wake({ key, timeoutMs: -1 })).toThrow(InvalidArgumentError);
      expect(() => reads.queue.wake({ key, timeoutMs: 1.5 })).toThrow(InvalidArgumentError);
      expect(() => reads.queue.wake({ key: '', timeoutMs: 10 })).toThrow(InvalidArgumentError);
    } finally {
      await own.close();
    }
  });

  it('is interrupted by close({ immediate }) with ConnectionClosedError', async () => {
    const name = uniqueName('bpop');
    const own = await conn.duplicate(name);
    const popped = pop(own, `{${name}}:wake`, 0);
    await waitFor(() => blocked(name), { what: 'the BLPOP to block' });
    await own.close({ immediate: true });
    expect(await rejection(popped)).toBeInstanceOf(ConnectionClosedError);
  });

  it('fails with ConnectionLostError when its socket dies, and is never replayed', async () => {
    const name = uniqueName('lost');
    const own = await conn.duplicate(name);
    const key = `{${name}}:wake`;
    try {
      // The rejection is taken at once: on a loaded machine the socket can go before the kill below.
      const popped = rejection(pop(own, key, 0));
      await waitFor(() => blocked(name), { what: 'the BLPOP to block' });
      await conn.command('CLIENT', 'KILL', 'ID', await clientId(name));
      expect(await popped).toBeInstanceOf(ConnectionLostError);
      await waitFor(() => own.stats().reconnects === 1 && own.status === 'ready', { what: 'the reconnect' });
      // A replayed BLPOP would be blocked on the new socket and take this push.
      await conn.command('RPUSH', key, 'left-alone');
      expect(String(await own.command('CLIENT', 'INFO'))).not.toContain('cmd=blpop');
      expect(await conn.command('LRANGE', key, 0, -1)).toEqual(['left-alone']);
      await conn.command('DEL', key);
    } finally {
      await own.close();
    }
  });
});
