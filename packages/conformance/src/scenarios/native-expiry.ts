/** I. Native field expiry (58–59): optional, for servers with hash-field TTL (Redis 7.4+, Valkey 9+). */
import assert from 'node:assert/strict';
import { LockedError } from '@echo/protocol';
import type { Scenario, ScenarioEnv } from '../scenario.js';
import { assertError, count, rejection, until } from '../support.js';

/** The reason the native-expiry scenarios report on a server without hash-field TTL. */
export const NEEDS_FIELD_TTL = 'needs Redis 7.4+ hash-field TTL';

/** Skips unless the server knows HPEXPIRE (Redis 7.4+, Valkey 9+). */
async function fieldTtl(env: ScenarioEnv): Promise<string | undefined> {
  const info = (await env.command('COMMAND', 'INFO', 'HPEXPIRE')) as unknown[];
  return Array.isArray(info) && info[0] !== null && info[0] !== undefined ? undefined : NEEDS_FIELD_TTL;
}

export const nativeExpiry: Scenario[] = [
  {
    no: 58,
    name: 'native_lock_field',
    family: 'native',
    contract: 'a lock field on the row has a readable hash-field TTL (HPTTL > 0); moved into the past it disappears without any sweep, and state is unaffected',
    probe: fieldTtl,
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('n');
      const row = q.keys.job(id);
      await env.command('HSET', row, 'lock', '1');
      assert.deepEqual(await env.command('HPEXPIRE', row, 60_000, 'FIELDS', 1, 'lock'), [1]);
      const [ttl] = (await env.command('HPTTL', row, 'FIELDS', 1, 'lock')) as number[];
      assert.ok(Number(ttl) > 0, `HPTTL ${String(ttl)} > 0`);
      await env.command('HPEXPIREAT', row, 1, 'FIELDS', 1, 'lock');
      assert.equal(await count(env, 'HEXISTS', row, 'lock'), 0);
      assert.equal(await env.command('HGET', row, 'state'), 'pending');
      assert.equal(await q.getState(id), 'pending');
    },
  },
  {
    no: 59,
    name: 'native_lock_refuses',
    family: 'native',
    contract: 'a lock field on its own makes removeJob fail with LockedError and the job stays pending; once the field expires, remove succeeds and the job reads absent',
    probe: fieldTtl,
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('n');
      const row = q.keys.job(id);
      await env.command('HSET', row, 'lock', '1');
      assert.deepEqual(await env.command('HPEXPIRE', row, 150, 'FIELDS', 1, 'lock'), [1]);
      assertError(await rejection(q.remove(id)), LockedError, { errorClass: 'EMQLOCK' });
      assert.equal(await q.getState(id), 'pending');
      await until(async () => (await count(env, 'HEXISTS', row, 'lock')) === 0, 'the lock field to expire', 2000);
      await q.remove(id);
      assert.equal(await q.getState(id), 'absent');
    },
  },
];
