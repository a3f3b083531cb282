import { Connection, EchoError, mintId, parseKey } from '@echo/protocol/extend';
import { startRedis, type RedisServer } from '@echo/testkit';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from '../src/index.js';

// A server of our own: the check reads every key on it afterwards.
let server: RedisServer;
let admin: Redis;
let conn: Connection;

beforeAll(async () => {
  server = await startRedis();
  admin = server.client();
  conn = await Connection.connect({ url: server.url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
  admin.disconnect();
  await server.stop();
});

/** Names that are mostly valid, sometimes hostile: braces, colons, spaces, the reserve, overlong. */
const names = fc.oneof(
  { arbitrary: fc.stringMatching(/^[A-Za-z0-9._-]{1,12}$/), weight: 4 },
  { arbitrary: fc.constantFrom('', 'emq', 'a b', 'x{y}', 'q:1', '{emq}', 'ünïcode', 'x'.repeat(129), 'tab\there', 'new\nline'), weight: 1 },
  { arbitrary: fc.string({ maxLength: 20 }), weight: 1 },
);
// Weighted towards the near-misses a broken check would let through to a key.
const ids = fc.oneof(
  { arbitrary: fc.constantFrom('JOB0KHTOWnGLuC', 'ORD0KHTOWnGLuC', 'JOBzzzzzzzzzzz', 'job0KHTOWnGLuC', 'JOB0KHTOWnGLu', 'JOB0KHTOWnGLu*', 'JOB0KHTOWnGLuCx', ''), weight: 4 },
  { arbitrary: fc.constant('__mint__'), weight: 2 },
  { arbitrary: fc.constant(undefined), weight: 1 },
  { arbitrary: fc.string({ maxLength: 16 }).map((s) => `JOB${s}`), weight: 2 },
);
const payloads = fc.oneof(
  { arbitrary: fc.jsonValue(), weight: 6 },
  { arbitrary: fc.constant(undefined), weight: 1 },
  { arbitrary: fc.constant(() => 1), weight: 1 },
);
const numbers = fc.oneof(fc.integer({ min: -5, max: 50 }), fc.constantFrom(Number.NaN, 1.5, -0.1, Number.POSITIVE_INFINITY, 2 ** 60));

type Op =
  | { op: 'enqueue'; payload: unknown; id: string | undefined; delayMs: number | undefined; dedupId: string | undefined }
  | { op: 'claim'; leaseMs: number }
  | { op: 'claimBatch'; size: number; leaseMs: number }
  | { op: 'lane'; group: string | undefined; payload: unknown }
  | { op: 'addLog'; id: string | undefined; keep: number }
  | { op: 'repeat'; name: string; everyMs: number }
  | { op: 'counts'; name: string }
  | { op: 'remove'; id: string | undefined; dedupId: string | undefined };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('enqueue' as const), payload: payloads, id: ids, delayMs: fc.option(numbers, { nil: undefined, freq: 3 }), dedupId: fc.option(names, { nil: undefined, freq: 4 }) }),
  fc.record({ op: fc.constant('claim' as const), leaseMs: numbers }),
  fc.record({ op: fc.constant('claimBatch' as const), size: numbers, leaseMs: numbers }),
  fc.record({ op: fc.constant('lane' as const), group: ids, payload: payloads }),
  fc.record({ op: fc.constant('addLog' as const), id: ids, keep: numbers }),
  fc.record({ op: fc.constant('repeat' as const), name: names, everyMs: numbers }),
  fc.record({ op: fc.constant('counts' as const), name: fc.oneof(fc.constantFrom('pending', 'dead', 'completed'), fc.string({ maxLength: 8 })) }),
  fc.record({ op: fc.constant('remove' as const), id: ids, dedupId: fc.option(names, { nil: undefined }) }),
);

function resolveId(id: string | undefined): string | undefined {
  return id === '__mint__' ? mintId('JOB') : id;
}

async function apply(queue: Queue, o: Op): Promise<unknown> {
  switch (o.op) {
    case 'enqueue': {
      const id = resolveId(o.id);
      return queue.enqueue(o.payload, {
        ...(id === undefined ? {} : { id }),
        ...(o.delayMs === undefined ? {} : { delayMs: o.delayMs }),
        ...(o.dedupId === undefined ? {} : { dedupId: o.dedupId }),
      });
    }
    case 'claim':
      return queue.leases().claim(o.leaseMs);
    case 'claimBatch':
      return queue.leases().claimBatch(o.size, o.leaseMs);
    case 'lane':
      return queue.enqueueInLane(resolveId(o.group) ?? 'PRT0KHTOWnGLuC', o.payload);
    case 'addLog':
      return queue.addLog(resolveId(o.id) ?? '', 'line', o.keep);
    case 'repeat':
      return queue.registerRepeat(o.name, { everyMs: o.everyMs, template: 1 });
    case 'counts':
      return queue.counts(o.name as 'pending');
    case 'remove':
      return queue.remove(resolveId(o.id) ?? '', o.dedupId === undefined ? {} : { dedupId: o.dedupId });
  }
}

describe('public API under arbitrary input', () => {
  it('either succeeds or throws a typed error, and never writes a key outside the registry', async () => {
    await fc.assert(
      fc.asyncProperty(names, fc.array(op, { minLength: 1, maxLength: 8 }), async (name, ops) => {
        let queue: Queue;
        try {
          queue = await Queue.open(name, { connection: conn });
        } catch (error) {
          expect(error).toBeInstanceOf(EchoError);
          return;
        }
        for (const o of ops) {
          try {
            await apply(queue, o);
          } catch (error) {
            if (!(error instanceof EchoError)) throw new Error(`untyped error from ${JSON.stringify(o)}`, { cause: error });
          }
        }
      }),
      { numRuns: 200 },
    );
    const keys = await admin.keys('*');
    const strays = keys.filter((k) => parseKey(k).kind === 'unclassified');
    expect(strays).toEqual([]);
    expect(keys.length).toBeGreaterThan(10);
  }, 60_000);
});
