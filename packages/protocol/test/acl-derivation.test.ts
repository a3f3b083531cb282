import { readFileSync } from 'node:fs';
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredCommands, GENERATED_FILE, REGENERATE, renderCommandsModule, valueImports } from '../scripts/gen-acl.js';
import { busAclRules, cacheAclRules, Connection, PermissionError, queueAclRules, queueKeys, reads } from './support.js';

describe('the host commands generated from the builders', () => {
  it('are current with src/ (regenerated in memory and compared with the committed module)', () => {
    const committed = readFileSync(GENERATED_FILE, 'utf8');
    expect(committed === renderCommandsModule(), `src/generated/host-commands.ts is stale: run \`${REGENERATE}\``).toBe(true);
  });

  it('reads each declaration form, and refuses a command that is not a literal', () => {
    const source = [
      "import { read } from '../read.js';",
      "export const a = () => read('HGETALL', [k], parse);",
      "export const b = () => read('XINFO STREAM', [k], parse);",
      "// read('FLUSHALL', []) in a comment sends nothing",
      "await client.call('EVALSHA', sha, 0);",
      '/** The driver sends it for us: @sends CLIENT SETNAME */',
    ].join('\n');
    expect(declaredCommands(source, 'reads/x.ts')).toEqual(['client|setname', 'evalsha', 'hgetall', 'xinfo|stream']);
    expect(() => declaredCommands("import { read } from '../read.js';\nread(name, [], parse);", 'reads/x.ts')).toThrow('literal');
    expect(() => declaredCommands("import { write } from '../write.js';\nwrite('XGROUP', ['CREATE'], parse);", 'writes/x.ts')).toThrow('subcommand');
  });

  it('follows value imports only: a type import sends nothing', () => {
    const source = ["import type { A } from './a.js';", "export type { B } from './b.js';", "import { c, type C } from './c.js';", "export * as d from '../d/index.js';"].join('\n');
    expect(valueImports(source, 'reads/x.ts')).toEqual(['reads/c.ts', 'd/index.ts']);
  });
});

describe('each pillar is granted what its own contract sends, and not the others', () => {
  const rules = { queue: queueAclRules(['q']), bus: busAclRules(['q']), cache: cacheAclRules(['t']) };
  it.each([
    // The queue's wake read; the bus's group reads and acknowledgements; the cache's tracking lane.
    ['+blpop', ['queue']],
    ['+xreadgroup', ['bus']],
    ['+xack', ['bus']],
    ['+client|tracking', ['cache']],
    ['+mget', ['cache']],
    // The connector's own, and the stream cursor every pillar holds.
    ['+evalsha', ['queue', 'bus', 'cache']],
    ['+hello', ['queue', 'bus', 'cache']],
    ['+xread', ['queue', 'bus', 'cache']],
  ] as const)('%s: %j', (command, holders) => {
    for (const pillar of ['queue', 'bus', 'cache'] as const) expect(rules[pillar].includes(command), pillar).toBe((holders as readonly string[]).includes(pillar));
  });
});

describe('a pillar subpath', () => {
  it.each([
    ['queue', () => import('../src/queue.js')],
    ['bus', () => import('../src/bus.js')],
    ['cache', () => import('../src/cache.js')],
  ] as const)('%s hands out builders and senders, not the factories that build a command by name', async (_pillar, load) => {
    const face: { reads: object; writes?: object } = await load();
    expect('read' in face.reads).toBe(false);
    if (face.writes !== undefined) expect('write' in face.writes).toBe(false);
    expect(typeof (face.reads as { sendRead?: unknown }).sendRead).toBe('function');
  });
});

describe('the derivation is what grants a command', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis();
    const admin = server.client();
    // `orders` holds the queue's rules; `short` the same but for the one command the wake read declares.
    await admin.call('ACL', 'SETUSER', 'orders', 'on', '>pw', ...queueAclRules(['orders']));
    await admin.call('ACL', 'SETUSER', 'short', 'on', '>pw', ...queueAclRules(['orders']).filter((r) => r !== '+blpop'));
    admin.disconnect();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('the wake read and the events subscription run under the generated rules; the read fails with PermissionError without +blpop', async () => {
    const wake = reads.queue.wake({ key: queueKeys('orders').wake, timeoutMs: 10 });
    const granted = await Connection.connect({ host: server.host, port: server.port, username: 'orders', password: 'pw' });
    const denied = await Connection.connect({ host: server.host, port: server.port, username: 'short', password: 'pw' });
    try {
      expect(await reads.sendRead(granted, wake)).toBeNull();
      await expect(reads.sendRead(denied, wake)).rejects.toBeInstanceOf(PermissionError);
      // SUBSCRIBE is declared by a tag (a method of the driver sends it), and granted from it.
      const events = await granted.subscribe(['emq:{orders}:events']);
      await events.unsubscribe();
    } finally {
      await granted.close();
      await denied.close();
    }
  });
});
