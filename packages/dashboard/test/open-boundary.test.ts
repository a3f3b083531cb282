/**
 * The dashboard's entry points check each argument's type (not only option keys) and bound their
 * time-like options, before they connect, listen or read anything.
 */
import { Connection, InvalidArgumentError, MAX_TIMER_MS, OptionRangeError, UnknownOptionError } from '@echo/protocol/extend';
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, createDashboard, serveDashboard } from '../src/index.js';

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

/** Casts past the types, as a JavaScript caller or a spread config does. */
function loose(value: unknown): never {
  return value as never;
}

async function clientCount(): Promise<number> {
  return String(await conn.command('CLIENT', 'LIST')).split('\n').length;
}

async function refusal(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

const rows: readonly [string, () => unknown, new (...args: never[]) => Error, string][] = [
  ['createDashboard with { host, port } as connection', () => createDashboard(loose({ connection: { host: '127.0.0.1', port: 6379 } })), InvalidArgumentError, 'serveDashboard({ connect })'],
  ['createDashboard with no connection', () => createDashboard(loose({})), InvalidArgumentError, 'open Connection or an Admin'],
  ['createDashboard with no options', () => createDashboard(loose(undefined)), InvalidArgumentError, 'options object'],
  ['createDashboard pollMs as text', () => createDashboard(loose({ connection: conn, pollMs: '1000' })), InvalidArgumentError, 'pollMs'],
  ['createDashboard pollMs past its bound', () => createDashboard({ connection: conn, pollMs: MAX_TIMER_MS + 1 }), OptionRangeError, String(MAX_TIMER_MS)],
  ['createDashboard discoverMs past its bound', () => createDashboard({ connection: conn, discoverMs: MAX_TIMER_MS + 1 }), OptionRangeError, String(MAX_TIMER_MS)],
  ['createDashboard authorize not a function', () => createDashboard(loose({ connection: conn, authorize: true })), InvalidArgumentError, 'authorize'],
  ['createDashboard readOnly as text', () => createDashboard(loose({ connection: conn, readOnly: 'yes' })), InvalidArgumentError, 'readOnly'],
  ['createDashboard title not text', () => createDashboard(loose({ connection: conn, title: 5 })), InvalidArgumentError, 'title'],
  ['Admin.over a plain object', () => Admin.over(loose({ host: '127.0.0.1' })), InvalidArgumentError, 'Admin.connect'],
  ['serveDashboard port as text', () => serveDashboard(loose({ connect: server.url, port: '3000' })), InvalidArgumentError, 'port'],
  ['serveDashboard pollMs past its bound', () => serveDashboard({ connect: server.url, port: 0, pollMs: MAX_TIMER_MS + 1 }), OptionRangeError, 'pollMs'],
];

describe('dashboard arguments', () => {
  it.each(rows)('%s is refused, typed, before connecting', async (_label, call, type, words) => {
    const clients = await clientCount();
    const error = await refusal(call);
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toContain(words);
    expect(await clientCount()).toBe(clients);
  });

  it('at the bound a dashboard is made', () => {
    expect(() => createDashboard({ connection: conn, pollMs: MAX_TIMER_MS, discoverMs: MAX_TIMER_MS })).not.toThrow();
  });

  it('a typo names the option it most likely means', async () => {
    const error = await refusal(() => createDashboard(loose({ connection: conn, polMs: 500 })));
    expect(error).toBeInstanceOf(UnknownOptionError);
    expect((error as UnknownOptionError).suggestion).toBe('pollMs');
  });
});
