import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkKeyLaw,
  Connection,
  defineScript,
  KEY_ARGS,
  KeyLawError,
  mintId,
  queueKeys,
  type Script,
} from './support.js';

/**
 * The static key-law reader and the strict twin, held to one verdict on the same snippets. Each row
 * is a small transition body; the test reads it with `checkKeyLaw` and runs its strict twin on a real
 * server, and both must give the row's verdict: `ok` (no violation; the call succeeds) or `refused`
 * (a violation; the call fails with EMQKEYLAW).
 *
 * The guard sees values and the reader sees text, so a construction the law forbids is refused at
 * run time only when the key it builds is not one the script may touch anyway (`'emq:{q}:' ..
 * ARGV[1]` with ARGV[1] = `meta` lands on a declared key). Each refused row is given inputs that
 * make its built key one the script may not touch; the reader refuses the construction whatever
 * the inputs.
 */

/** The declared keys of every row, in KEYS order, with the header shape the reader sees. */
const SLOTS = [
  ['meta', 'emq:{q}:meta'],
  ['jobroot', 'emq:{q}:job:'],
  ['laneroot', 'emq:{q}:g:'],
  ['gactive', 'emq:{q}:gactive'],
  ['glimit', 'emq:{q}:glimit'],
  ['ring', 'emq:{q}:ring'],
  ['wake', 'emq:{q}:wake'],
  ['paused', 'emq:{q}:paused'],
] as const;

type Verdict = 'ok' | 'refused';

interface Row {
  readonly name: string;
  /** Lua body; `Q` stands for the queue's hash tag, `ID` and `GRP` are ARGV[1] and ARGV[2]. */
  readonly body: string;
  readonly verdict: Verdict;
}

const UNDECLARED = "'emq:{Q}:undeclared'";

const rows: readonly Row[] = [
  // What the law admits.
  { name: 'a declared key', body: "redis.call('GET', KEYS[1])", verdict: 'ok' },
  { name: 'a name bound to a KEYS[i]', body: "local m = KEYS[1]\nredis.call('HGET', m, 'f')", verdict: 'ok' },
  { name: 'a loop over KEYS', body: "for _, k in ipairs(KEYS) do redis.call('EXISTS', k) end", verdict: 'ok' },
  { name: 'jkey on the job root', body: "redis.call('EXISTS', jkey(KEYS[2], ARGV[1], ':lock'))", verdict: 'ok' },
  { name: 'a name bound to jkey', body: "local row = jkey(KEYS[2], ARGV[1])\nredis.call('HGET', row, 'state')", verdict: 'ok' },
  { name: 'jkey through a name bound to the root', body: "local JR = KEYS[2]\nredis.call('EXISTS', jkey(JR, ARGV[1]))", verdict: 'ok' },
  { name: 'gkey on the lane root', body: "redis.call('ZCARD', gkey(KEYS[3], ARGV[2]))", verdict: 'ok' },
  { name: 'a lane bookkeeping field', body: "local lb = lane_keys(k_gactive, k_glimit, k_ring, k_wake, k_paused)\nredis.call('LLEN', lb.ring)", verdict: 'ok' },
  {
    name: 'a key parameter given a declared key',
    body: "local function touch(key) return redis.call('EXISTS', key) end\ntouch(KEYS[1])",
    verdict: 'ok',
  },
  { name: 'DEL of declared and built keys', body: "redis.call('DEL', KEYS[1], jkey(KEYS[2], ARGV[1], ':logs'))", verdict: 'ok' },
  { name: 'a command without keys', body: "redis.call('TIME')", verdict: 'ok' },
  { name: 'pcall of a declared key', body: "redis.pcall('GET', KEYS[1])", verdict: 'ok' },
  { name: 'a name bound to nil, then to a built key', body: "local lane = nil\nlane = gkey(KEYS[3], ARGV[2])\nredis.call('ZCARD', lane)", verdict: 'ok' },
  // What it refuses.
  { name: 'an undeclared literal', body: `redis.call('GET', ${UNDECLARED})`, verdict: 'refused' },
  { name: 'a key built from ARGV', body: "redis.call('GET', 'emq:{Q}:' .. ARGV[3])", verdict: 'refused' },
  { name: 'a concatenated declared key', body: "redis.call('GET', KEYS[1] .. ':x')", verdict: 'refused' },
  { name: 'a declared root concatenated with a checked id', body: "redis.call('EXISTS', KEYS[2] .. ARGV[1])", verdict: 'refused' },
  { name: 'a bound name concatenated', body: "local m = KEYS[1]\nredis.call('GET', m .. ':x')", verdict: 'refused' },
  { name: 'a key name rebound to a literal', body: `local m = KEYS[1]\nm = ${UNDECLARED}\nredis.call('GET', m)`, verdict: 'refused' },
  {
    name: 'a key parameter given a literal',
    body: `local function touch(key) return redis.call('EXISTS', key) end\ntouch(${UNDECLARED})`,
    verdict: 'refused',
  },
  { name: 'jkey on a declared key that is not a root', body: "redis.call('EXISTS', jkey(KEYS[1], ARGV[1]))", verdict: 'refused' },
  { name: 'gkey on the job root', body: "redis.call('ZCARD', gkey(KEYS[2], ARGV[2]))", verdict: 'refused' },
  { name: 'jkey on an undeclared root', body: "redis.call('EXISTS', jkey('emq:{Q}:other:job:', ARGV[1]))", verdict: 'refused' },
  { name: 'a KEYS index past the header', body: "redis.call('GET', KEYS[9])", verdict: 'refused' },
  { name: 'lane fields that are not declared keys', body: `local lb = { ring = ${UNDECLARED} }\nredis.call('LLEN', lb.ring)`, verdict: 'refused' },
  { name: 'a command outside the key-position table', body: "redis.call('HSTRLEN', KEYS[1], 'f')", verdict: 'refused' },
  { name: 'pcall of an undeclared literal', body: `redis.pcall('GET', ${UNDECLARED})`, verdict: 'refused' },
  // Every key position of the table, read by both sides from the one KEY_ARGS.
  ...Object.entries(KEY_ARGS).flatMap(([command, arity]): Row[] => {
    const cmd = command.toUpperCase();
    if (arity === 0) return [{ name: `${cmd} (no key)`, body: `redis.call('${cmd}')`, verdict: 'ok' }];
    const n = arity === 'all' ? 2 : arity;
    return Array.from({ length: n }, (_, at) => {
      const keys = Array.from({ length: n }, (_, j) => (j === at ? UNDECLARED : 'KEYS[1]'));
      return { name: `${cmd}: undeclared key ${String(at + 1)} of ${String(n)}`, body: `redis.call('${cmd}', ${keys.join(', ')})`, verdict: 'refused' as const };
    });
  }),
];

function rowScript(row: Row, q: string): Script {
  return defineScript({
    origin: `key-law row: ${row.name}`,
    source: [
      '-- @script law_row',
      '-- @purpose One row of the key-law agreement table.',
      ...SLOTS.map(([name, shape]) => `-- @key ${name} ${shape}`),
      '-- @arg id a branded job id',
      '-- @arg group a branded group id',
      '-- @arg name a bare name',
      '-- @include core lanes',
      '-- @returns nothing',
      row.body.replaceAll('{Q}', `{${q}}`),
    ].join('\n'),
  });
}

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

async function strictVerdict(script: Script, q: string): Promise<Verdict> {
  const k = queueKeys(q);
  const keys = [k.meta, k.jobRoot, k.laneRoot, k.gactive, k.glimit, k.ring, k.wake, k.paused];
  try {
    await conn.run(script, keys, [mintId('JOB'), mintId('GRP'), 'pending']);
    return 'ok';
  } catch (error) {
    if (error instanceof KeyLawError) return 'refused';
    throw error;
  }
}

describe('the static key-law reader and the strict twin agree', () => {
  it('the table names each verdict on both sides', () => {
    expect(rows.filter((r) => r.verdict === 'ok').length).toBeGreaterThan(10);
    expect(rows.filter((r) => r.verdict === 'refused').length).toBeGreaterThan(10);
    expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length);
  });

  it.each(rows.map((r) => [r.name, r] as const))('%s', async (_, row) => {
    const q = uniqueName('law');
    const script = rowScript(row, q);
    const found = checkKeyLaw(script, script.body);
    const statically: Verdict = found.length === 0 ? 'ok' : 'refused';
    expect({ statically, found }).toMatchObject({ statically: row.verdict });
    expect(await strictVerdict(script, q)).toBe(row.verdict);
  });
});
