import { useRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, defineScript, encodeId, isBrandedId, mintId } from './support.js';

/**
 * The in-script id check (`vid`, lib core) against the host's `isBrandedId` on the edges of the
 * grammar and of the 63-bit range: one verdict on both sides of the wire. The script checks every
 * argument twice in one call, because `vid` remembers the ids it admitted within a call: a repeat
 * must answer as the first check did, a refused id never becomes admitted.
 */
const script = defineScript({
  origin: 'test: vid against isBrandedId',
  source: [
    '-- @script vid_probe',
    '-- @purpose Answers vid of each argument, twice per argument in one call.',
    '-- @args ids candidate ids',
    '-- @include core',
    '-- @returns {0|1, ...}: vid of ARGV[1..n], then again of ARGV[1..n]',
    'local out = {}',
    'for round = 1, 2 do',
    '  for i = 1, #ARGV do out[#out + 1] = vid(ARGV[i]) and 1 or 0 end',
    'end',
    'return out',
  ].join('\n'),
});

const MAX = 2n ** 63n - 1n;
const candidates = [
  mintId('JOB'),
  encodeId('JOB', 0n),
  encodeId('JOB', MAX),
  encodeId('JOB', MAX - 1n),
  'JOBAzL8n0Y58m8',
  'JOBAzL8n0Y58n0',
  'JOBAzM00000000',
  'JOBB0000000000',
  'JOBzzzzzzzzzzz',
  'JOB0zzzzzzzzzz',
  'JOBAz000000000',
  'job0KHTOWnGLuC',
  'JOB0KHTOWnGLu',
  'JOB0KHTOWnGLuCx',
  'JOB0KHTOWnGLu*',
  'JO10KHTOWnGLuC',
  '',
];

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url });
});
afterAll(async () => {
  await conn.close();
});

describe('vid, the in-script id check (protocol.md §4.6)', () => {
  it('gives the host’s verdict on every edge, and the same verdict again within one call', async () => {
    const expected = candidates.map((id) => (isBrandedId(id) ? 1 : 0));
    // The edges are on both sides of the line: a check that admitted everything would fail here.
    expect(expected).toContain(0);
    expect(expected).toContain(1);
    expect(await conn.run(script, [], candidates)).toEqual([...expected, ...expected]);
  });
});
