import { Redis } from 'ioredis';
import { Connection, InvalidArgumentError, MalformedIdError, mintId, type LifecycleEvent } from '@echo/protocol/bus';
import { uniqueName, useRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus, type EventsListener, type ListenOptions } from '../src/index.js';
import { connect, until } from './helpers.js';

let conn: Connection;

beforeAll(async () => {
  conn = await connect();
});
afterAll(async () => {
  await conn.close();
});

/** The queue's bus on the shared connection: opening it sends nothing. */
async function listenOn(queue: string, options: ListenOptions): Promise<EventsListener> {
  return (await Bus.open(queue, { connection: conn })).events(options);
}

async function publishOn(queue: string, ...args: Parameters<Bus['publish']>): Promise<void> {
  await (await Bus.open(queue, { connection: conn })).publish(...args);
}

/** The server-side id of the client connection named `name`. */
async function clientIdByName(name: string): Promise<string> {
  const list = (await conn.command('CLIENT', 'LIST')) as string;
  const line = list.split('\n').find((l) => l.includes(` name=${name} `));
  const id = line === undefined ? undefined : /^id=(\d+)/.exec(line)?.[1];
  if (id === undefined) throw new Error(`no client named ${name}`);
  return id;
}

async function subscribers(channel: string): Promise<number> {
  const reply = (await conn.command('PUBSUB', 'NUMSUB', channel)) as unknown[];
  return Number(reply[1]);
}

describe('the events channel', () => {
  it('delivers each message to subscribers as (name, raw) and to listeners parsed; unknown names read as unknown', async () => {
    const queue = uniqueName('ev');
    const bus = await Bus.open(queue, { connection: conn });
    const events = await bus.events();
    const raw: [string, string][] = [];
    const parsed: LifecycleEvent[] = [];
    events.subscribe((name, payload) => raw.push([name, payload]));
    events.on((event) => parsed.push(event));
    try {
      const job = mintId('JOB');
      await bus.publish('completed', job);
      await bus.publish('failed', job, { outcome: 'dead' });
      await conn.command('PUBLISH', bus.channel, JSON.stringify({ job, event: 'exploded' }));
      await conn.command('PUBLISH', bus.channel, '{"event":"stalled","job":"' + job + '","n":1}');
      await until(() => raw.length === 4);
      expect(raw.map(([name]) => name)).toEqual(['completed', 'failed', 'unknown', 'stalled']);
      expect(JSON.parse(raw[1]?.[1] ?? '')).toEqual({ event: 'failed', job, outcome: 'dead' });
      expect(parsed).toEqual([
        { event: 'completed', job, fields: {} },
        { event: 'failed', job, fields: { outcome: 'dead' } },
        { event: 'unknown', job, fields: {} },
      ]);
      expect(events.stats()).toEqual({ messages: 4, subscribes: 1 });
    } finally {
      await events.close();
    }
  });

  it('keeps delivering when a subscriber throws, and reports the throw', async () => {
    const queue = uniqueName('ev');
    const errors: unknown[] = [];
    const events = await listenOn(queue, { onError: (e) => errors.push(e) });
    const seen: string[] = [];
    events.subscribe(() => {
      throw new Error('bad subscriber');
    });
    const off = events.subscribe((name) => seen.push(name));
    try {
      const next = events.next((e) => e.event === 'delayed');
      await publishOn(queue, 'delayed', mintId('JOB'));
      expect((await next).event).toBe('delayed');
      await until(() => seen.length === 1);
      expect(errors).toHaveLength(1);
      off();
      await publishOn(queue, 'delayed', mintId('JOB'));
      await until(() => errors.length === 2);
      expect(seen).toHaveLength(1);
    } finally {
      await events.close();
    }
  });

  it('publish checks its arguments before any I/O; zero receivers is still success', async () => {
    const queue = uniqueName('ev');
    const before = conn.stats().commands;
    await expect(publishOn(queue, 'completed', 'nope' as never)).rejects.toThrow(MalformedIdError);
    await expect(publishOn(queue, 'exploded' as never, mintId('JOB'))).rejects.toThrow(InvalidArgumentError);
    await expect(publishOn(queue, 'completed', mintId('JOB'), { job: 'x' })).rejects.toThrow(/reserved/);
    await expect(publishOn(queue, 'completed', mintId('JOB'), { n: 1 } as never)).rejects.toThrow(InvalidArgumentError);
    await expect(publishOn('bad name', 'completed', mintId('JOB'))).rejects.toThrow(/queue/);
    expect(conn.stats().commands).toBe(before);
    await expect(publishOn(queue, 'completed', mintId('JOB'))).resolves.toBeUndefined();
  });
});

describe('conformance 18 resubscribe', () => {
  it('re-subscribes after CLIENT KILL with no help from the caller; the fence runs on the subscribed socket first', async () => {
    const queue = `${uniqueName('ev')}.resubscribe`;
    const name = uniqueName('sub');
    const events: EventsListener = await listenOn(queue, { connectionName: name });
    const got: LifecycleEvent[] = [];
    events.on((e) => got.push(e));
    try {
      const first = mintId('JOB');
      await publishOn(queue, 'progress', first, { progress: '10' });
      await until(() => got.length === 1);

      const killed = await clientIdByName(name);
      await conn.command('CLIENT', 'KILL', 'ID', killed);
      // Back once the server lists a new connection under the name, subscribed again, and the
      // listener has read the confirmation (the server lists the subscriber before its reply is read).
      await until(async () => (await clientIdByName(name).catch(() => killed)) !== killed && (await subscribers(events.channel)) === 1 && events.stats().subscribes >= 2);
      expect(events.stats().subscribes).toBe(2);

      const second = mintId('JOB');
      await publishOn(queue, 'completed', second);
      await until(() => got.length === 2);
      expect(got.map((e) => [e.event, e.job])).toEqual([
        ['progress', first],
        ['completed', second],
      ]);
    } finally {
      await events.close();
    }
    expect(await subscribers(events.channel)).toBe(0);
  });

  it('a Connection subscribed in RESP3 re-fences on reconnect: GET is accepted in subscriber mode', async () => {
    const name = uniqueName('raw');
    const own = await Connection.connect({ url: (await useRedis()).url, name });
    try {
      expect(String(await own.command('CLIENT', 'INFO'))).toMatch(/ resp=3\b/);
      await own.subscribe([`${name}.ch`]);
      // ioredis only refuses commands in subscriber mode on RESP2; under RESP3 a GET simply runs.
      expect(await own.command('GET', '{emq}:version')).toMatch(/^echomq:3\./);
      await conn.command('CLIENT', 'KILL', 'ID', await clientIdByName(name));
      await until(() => own.stats().reconnects === 1 && own.status === 'ready');
      expect(own.stats().fences).toBe(2);
    } finally {
      await own.close();
    }
  });

  it('refuses a RESP2 connection: on RESP2, ioredis rejects the fence GET of a subscribed socket', async () => {
    const server = await useRedis();
    const raw = new Redis({ host: server.host, port: server.port, protocol: 2, lazyConnect: true, disableClientInfo: true });
    try {
      await raw.connect();
      await raw.subscribe(uniqueName('r2'));
      await expect(raw.get('{emq}:version')).rejects.toThrow(/subscriber mode/);
    } finally {
      raw.disconnect();
    }
  });
});
