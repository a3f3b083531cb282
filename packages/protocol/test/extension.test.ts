import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bind, checkKeyLaw, Connection, defineScript, EchoError, EmqError, execute, loadScript, queueKeys, transition, type Script, type Transition } from './support.js';

/** The typed error a library author ships with their transition. */
class QuotaExhaustedError extends EchoError {
  constructor(detail: string) {
    super('quota_exhausted', detail);
  }
}

const quotaTake: Script = loadScript(new URL('./fixtures/extension/quota_take.lua', import.meta.url), {
  errorClasses: { EMQQUOTA: (detail) => new QuotaExhaustedError(detail) },
});

/** The typed function a library author puts on top: names in, a typed verdict out, no KEYS array. */
function takeQuota(input: { queue: string; amount: number }): Transition<number> {
  return transition(bind(quotaTake, { scope: { q: input.queue }, args: { amount: input.amount } }), Number);
}

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

describe('extending the protocol with a transition of your own', () => {
  it('passes the same static key-law check as the catalog', () => {
    expect(checkKeyLaw(quotaTake, quotaTake.body)).toEqual([]);
    expect(quotaTake.header.errors).toEqual(['EMQQUOTA quota exhausted']);
  });

  it('runs through the same connector, strict checker and error seam', async () => {
    const k = queueKeys(uniqueName('ext'));
    await conn.command('HSET', k.meta, 'quota', '2');
    await conn.command('SCRIPT', 'FLUSH');
    expect(await conn.run(quotaTake, [k.meta], ['1'])).toBe(1);
    expect(await conn.run(quotaTake, [k.meta], ['1'])).toBe(0);
    const error = await conn.run(quotaTake, [k.meta], ['1']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuotaExhaustedError);
    expect((error as Error).message).toBe('quota exhausted');
  });

  it('without a mapping, an unknown class still arrives typed as EmqError', async () => {
    const bare = loadScript(new URL('./fixtures/extension/quota_take.lua', import.meta.url));
    const k = queueKeys(uniqueName('ext'));
    const error = await conn.run(bare, [k.meta], ['1']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmqError);
    expect((error as EmqError).errorClass).toBe('EMQQUOTA');
    expect((error as EmqError).detail).toBe('quota exhausted');
  });

  it("a script defined from a string includes Echo's libraries from the build and its own from libDirs", async () => {
    const quotaPeek = defineScript({
      origin: 'quota_peek (inline)',
      libDirs: [new URL('./fixtures/extension/lib/', import.meta.url)],
      source: [
        '-- @script quota_peek',
        '-- @purpose Reads the quota and the server clock without taking anything.',
        '-- @key quota      emq:{q}:meta',
        '-- @include core quota',
        '-- @returns { units left, 1 when the server clock reads past 2020 }',
        'return { quota_left(KEYS[1]), now_ms() > 1577836800000 and 1 or 0 }',
      ].join('\n'),
    });
    expect(quotaPeek.source).toContain('local function now_ms()');
    expect(quotaPeek.source).toContain('local function quota_left(meta)');
    expect(checkKeyLaw(quotaPeek, quotaPeek.body)).toEqual([]);
    const k = queueKeys(uniqueName('ext'));
    await conn.command('HSET', k.meta, 'quota', '5');
    expect(await conn.run(quotaPeek, [k.meta], [])).toEqual([5, 1]);
  });

  it('holds error classes to the EMQ<CLASS> form, in the header and in the typed factories', () => {
    const source = (error: string): string =>
      ['-- @script quota_odd', '-- @purpose A refusal under a word of the wrong form.', `-- @error ${error}`, '-- @returns nothing', 'return 0'].join('\n');
    expect(() => defineScript({ source: source('QUOTA exhausted') })).toThrow(/@error QUOTA is not of the form EMQ<CLASS>/);
    expect(() => defineScript({ source: source('EMQquota exhausted') })).toThrow(/EMQ<CLASS>/);
    expect(() => defineScript({ source: source('EMQQUOTA exhausted'), errorClasses: { QUOTA: (d) => new QuotaExhaustedError(d) } })).toThrow(
      /QUOTA is not of the form EMQ<CLASS>/,
    );
    expect(defineScript({ source: source('EMQQUOTA exhausted'), errorClasses: { EMQQUOTA: (d) => new QuotaExhaustedError(d) } }).name).toBe('quota_odd');
  });

  it('binds through the header like the catalog: a typed function, its argument shape, its reply', async () => {
    const queue = uniqueName('ext');
    const t = takeQuota({ queue, amount: 2 });
    expect([...t.keys]).toEqual([`emq:{${queue}}:meta`]);
    expect([...t.args]).toEqual([2]);
    await conn.command('HSET', queueKeys(queue).meta, 'quota', '3');
    expect(await execute(conn, t)).toBe(1);
    await expect(execute(conn, takeQuota({ queue, amount: 2 }))).rejects.toBeInstanceOf(QuotaExhaustedError);
  });
});
