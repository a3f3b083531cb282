/**
 * A group consumer PROCESS is SIGKILLed in the middle of a batch. Nothing it was handed is lost: the
 * entries of the batch it never finished stay pending, and a peer claims them once idle, so every
 * entry is finished by one of the two and the group's pending list ends empty.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Connection, type EvtId } from '@echo/protocol/bus';
import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus, type GroupConsumer } from '../src/index.js';
import { connect, purge, until } from './helpers.js';

const ENTRIES = 500;
const COUNT = 50;
const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const fixture = fileURLToPath(new URL('fixtures/consumer-process.ts', import.meta.url));

let conn: Connection;
let child: ChildProcessWithoutNullStreams | undefined;
let peer: GroupConsumer | undefined;
let queue: string;

beforeAll(async () => {
  conn = await connect();
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await peer?.close();
  await purge(conn, queue);
  await conn.close();
});

describe('a consumer SIGKILLed mid-batch', () => {
  it('loses nothing: its unfinished batch reaches a peer', async () => {
    queue = uniqueName('kill');
    const stream = (await Bus.open(queue, { connection: conn })).stream('log');
    const ids = await stream.appendBatch(Array.from({ length: ENTRIES }, (_, i) => ({ i: String(i) })));
    const doneKey = `kill:{${queue}}:done`;

    const proc = spawn(process.execPath, ['--conditions=@echo/source', '--import', 'tsx', fixture], {
      cwd: packageRoot,
      env: { ...process.env, KILL_URL: (await useRedis()).url, KILL_QUEUE: queue, KILL_DONE_KEY: doneKey, KILL_BATCHES: '3', KILL_COUNT: String(COUNT) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child = proc;
    let out = '';
    let err = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    proc.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-4000)));
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    await until(() => out.includes('stuck ') || proc.exitCode !== null, 60_000).catch(() => undefined);
    expect(out, err).toContain('stuck ');
    proc.kill('SIGKILL');
    await exited;

    const finishedByChild = (await conn.command('LRANGE', doneKey, '0', '-1')) as EvtId[];
    expect(finishedByChild).toHaveLength(3 * COUNT);
    const pendingAtKill = Number(((await conn.command('XPENDING', stream.key, 'g')) as unknown[])[0]);
    expect(pendingAtKill).toBe(COUNT);

    const byPeer = new Map<EvtId, number>();
    peer = await stream.consume('g', (e) => void byPeer.set(e.id, e.attempts), { start: 'head', consumer: 'peer', minIdleMs: 200, beatMs: 50 });
    await until(() => byPeer.size + finishedByChild.length >= ENTRIES, 20_000);
    await until(async () => Number(((await conn.command('XPENDING', stream.key, 'g')) as unknown[])[0]) === 0);
    expect(new Set([...finishedByChild, ...byPeer.keys()])).toEqual(new Set(ids));
    // The stuck batch came to the peer as a second delivery; the rest as first ones.
    expect([...byPeer.values()].filter((a) => a === 2)).toHaveLength(COUNT);
    await conn.command('DEL', doneKey);
  });
});
