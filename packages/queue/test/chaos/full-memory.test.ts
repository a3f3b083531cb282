/**
 * Chaos: Redis reaches its `maxmemory` under `noeviction` while a producer enqueues and a worker
 * runs. Enqueue must fail with OutOfMemoryError, nothing may be half-written (a job row without its
 * pending entry, or the reverse), every acknowledged job must run once memory is freed, and the
 * producer's next enqueue must succeed without a reconnect.
 */
import { Connection, EchoError, OutOfMemoryError, parseKey, type JobId } from '@echo/protocol/extend';
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from '../../src/index.js';
import { until } from './helpers.js';

/** The server's memory limit, which the test lowers under used memory and then puts back. */
const LIMIT = 4 * 1024 * 1024;

let server: RedisServer;
let conn: Connection;

beforeAll(async () => {
  server = await startRedis({ args: ['--maxmemory', String(LIMIT), '--maxmemory-policy', 'noeviction'] });
  conn = await Connection.connect({ url: server.url, strictKeys: true });
});

afterAll(async () => {
  await conn.close();
  await server.stop();
});

/** The server's used memory, the part of it held by client buffers, and its limit, from INFO. */
async function memory(): Promise<{ used: number; clients: number; max: number }> {
  const info = String(await conn.command('INFO', 'memory'));
  const field = (name: string): number => {
    const value = new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1];
    if (value === undefined) throw new Error(`INFO memory has no ${name}`);
    return Number(value);
  };
  return { used: field('used_memory'), clients: field('mem_clients_normal'), max: field('maxmemory') };
}

/** Every key on the server, by SCAN. */
async function allKeys(): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = (await conn.command('SCAN', cursor, 'COUNT', 1000)) as [string, string[]];
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

describe('chaos: Redis at maxmemory under noeviction', () => {
  it('refuses enqueues typed, half-writes nothing, and resumes once memory is freed', async () => {
    const queue = await Queue.open<string>('full', { connection: conn });
    const payload = 'p'.repeat(1_000);
    // A ballast the test frees later, as an operator would by trimming or raising maxmemory.
    const ballast = 'b'.repeat(512 * 1024);
    for (let i = 0; i < 3; i++) await conn.command('SET', `ballast:${i}`, ballast);

    const acked: JobId[] = [];
    let refused: unknown;
    for (let i = 0; i < 20_000 && refused === undefined; i++) {
      try {
        acked.push((await queue.enqueue(payload)).id);
      } catch (error) {
        refused = error;
      }
    }
    expect(refused).toBeInstanceOf(OutOfMemoryError);
    // The refusal came at the edge, where used memory wobbles: a script that starts under the limit
    // writes all it holds, and client buffers count in used memory but shrink on the server's own
    // schedule (the ballast's 512 KB query buffer alone, once its cron gets round to it on a busy
    // machine; a loaded CI run saw used minus client memory fall by 500 KB between two reads). So
    // the limit goes to half of what the data alone holds: the batch and the worker below meet a
    // server certainly over it, whatever its buffers and allocator do meanwhile.
    expect(await conn.command('CONFIG', 'GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    const atRefusal = await memory();
    await conn.command('CONFIG', 'SET', 'maxmemory', String(Math.floor((atRefusal.used - atRefusal.clients) / 2)));
    const overLimit = await memory();
    expect(overLimit.used - overLimit.clients).toBeGreaterThan(overLimit.max);
    const batch = await queue.enqueueMany(Array.from({ length: 50 }, () => ({ payload })));
    const batchRefused = batch.flatMap((r) => (r.status === 'failed' ? [r] : []));
    expect(batchRefused.length).toBeGreaterThan(0);
    for (const r of batchRefused) expect(r.error).toBeInstanceOf(OutOfMemoryError);
    acked.push(...batch.flatMap((r) => (r.status === 'failed' ? [] : [r.id])));

    // Nothing half-written: every key parses, every row is pending or held, every entry has its row.
    const keys = await allKeys();
    const strays = keys.filter((k) => !k.startsWith('ballast:') && parseKey(k).kind === 'unclassified');
    expect(strays).toEqual([]);
    const rows = new Set<string>(keys.flatMap((k) => {
      const parsed = parseKey(k);
      return parsed.kind === 'job' && parsed.sub === null ? [parsed.id] : [];
    }));
    const pending = (await conn.command('ZRANGE', queue.keys.pending, 0, -1)) as string[];
    const active = (await conn.command('ZRANGE', queue.keys.active, 0, -1)) as string[];
    for (const id of [...pending, ...active]) expect(rows.has(id)).toBe(true);
    const placed = new Set([...pending, ...active]);
    for (const id of rows) expect(placed.has(id)).toBe(true);
    // Every acknowledged job has its row.
    for (const id of acked) expect(rows.has(id)).toBe(true);
    expect(rows.size).toBe(acked.length);

    // A worker on a full server: its claims are writes too, refused the same typed way.
    const workerErrors: unknown[] = [];
    const ran = new Set<string>();
    const worker = await Worker.start(queue, (job) => void ran.add(job.id), { concurrency: 8, blockMs: 100, maintenanceMs: 100, onError: (e) => workerErrors.push(e) });
    try {
      await until('the worker met the full server', () => workerErrors.length > 0 || ran.size === acked.length, 10_000);

      const freedAt = Date.now();
      // Freeing the ballast alone might leave the lowered limit short of the client buffers that
      // regrow; the operator also puts the limit back, so the server is certainly under it.
      for (let i = 0; i < 3; i++) await conn.command('DEL', `ballast:${i}`);
      await conn.command('CONFIG', 'SET', 'maxmemory', String(LIMIT));
      const freed = await memory();
      expect(freed.used).toBeLessThan(freed.max);
      const after = await queue.enqueue(payload);
      acked.push(after.id);
      await until('every acknowledged job ran', () => acked.every((id) => ran.has(id)), 30_000);
      const resumedMs = Date.now() - freedAt;
      console.log(
        JSON.stringify({
          acknowledged: acked.length,
          refusedAt: acked.length - 1,
          batchRefused: batchRefused.length,
          workerErrors: workerErrors.map((e) => (e instanceof EchoError ? e.code : String(e))).slice(0, 3),
          workerErrorCount: workerErrors.length,
          lost: acked.filter((id) => !ran.has(id)).length,
          resumedMs,
          usedMemory: (await memory()).used,
        }),
      );
      for (const e of workerErrors) expect(e).toBeInstanceOf(EchoError);
      expect(await queue.counts('pending', 'active')).toEqual({ pending: 0, active: 0 });
      expect(conn.stats().reconnects).toBe(0);
    } finally {
      await worker.close();
    }
  }, 60_000);
});
