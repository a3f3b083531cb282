/**
 * The rows' truth, read with plain commands, and the check that Echo's reads agree with it: getJob,
 * getState, counts and listJobs on every job the scenario knows.
 */
import assert from 'node:assert/strict';
import type { MixedEnv } from './scenario.js';

const SETS = ['pending', 'active', 'schedule', 'dead'] as const;

/** What the shared keys say about one job. */
export interface RowTruth {
  readonly exists: boolean;
  readonly state: string | undefined;
  readonly attempts: string | undefined;
  readonly payload: string | undefined;
  readonly lastError: string | undefined;
  /** The flat set (or `lane`) that holds the id, if any. */
  readonly set: (typeof SETS)[number] | 'lane' | undefined;
}

async function hash(env: MixedEnv, key: string): Promise<Record<string, string>> {
  const flat = await env.command('HGETALL', key);
  const out: Record<string, string> = {};
  if (Array.isArray(flat)) for (let i = 0; i + 1 < flat.length; i += 2) out[String(flat[i])] = String(flat[i + 1]);
  else if (flat instanceof Map) for (const [k, v] of flat) out[String(k)] = String(v);
  else Object.assign(out, flat);
  return out;
}

/** Reads one job's row and set membership straight from the keys. */
export async function truthOf(env: MixedEnv, id: string): Promise<RowTruth> {
  const row = await hash(env, env.spec.row(id));
  let set: RowTruth['set'];
  for (const name of SETS) if ((await env.command('ZSCORE', env.spec.key(name), id)) !== null) set = name;
  if (set === undefined && row.group !== undefined && (await env.command('ZSCORE', env.spec.lane(row.group), id)) !== null) set = 'lane';
  const exists = Object.keys(row).length > 0;
  return { exists, state: row.state, attempts: row.attempts, payload: row.payload, lastError: row.last_error, set };
}

const POSITION: Readonly<Record<string, string>> = { pending: 'pending', lane: 'pending', active: 'active', schedule: 'scheduled', dead: 'dead' };

/**
 * Echo's reads of each job agree with the rows: the state and fields getJob reports, the position
 * getState answers, no finish time on a job that is not finished, dead listings (`dead`, `failed`)
 * only of dead rows, and counts equal to the set sizes.
 */
export async function assertEchoAgrees(env: MixedEnv, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    const truth = await truthOf(env, id);
    const job = await env.echo.getJob(id);
    if (!truth.exists) {
      assert.equal(job, undefined, `getJob(${id}) on a deleted row`);
      assert.equal(await env.echo.getState(id), 'absent', `getState(${id}) on a deleted row`);
      continue;
    }
    assert.ok(job !== undefined, `getJob(${id}) missed an existing row`);
    assert.equal(job.state, truth.state, `getJob(${id}).state`);
    assert.equal(String(job.attempts), truth.attempts, `getJob(${id}).attempts`);
    assert.equal(job.rawPayload, truth.payload, `getJob(${id}).rawPayload`);
    assert.equal(job.lastError, truth.lastError, `getJob(${id}).lastError`);
    if (truth.state !== 'dead' && truth.state !== 'completed' && truth.state !== 'expired') {
      assert.equal(job.finishedAt, undefined, `getJob(${id}).finishedAt on a ${String(truth.state)} job`);
    }
    if (truth.set !== undefined) assert.equal(await env.echo.getState(id), POSITION[truth.set], `getState(${id})`);
  }
  const counts = await env.echo.counts('pending', 'active', 'scheduled', 'dead');
  const card = async (name: string): Promise<number> => Number(await env.command('ZCARD', env.spec.key(name)));
  assert.deepEqual(counts, { pending: await card('pending'), active: await card('active'), scheduled: await card('schedule'), dead: await card('dead') }, 'counts');
  for (const state of ['dead', 'failed'] as const) {
    const page = await env.echo.listJobs(state, { limit: 1000 });
    for (const listed of page.jobs) {
      assert.equal((await truthOf(env, listed.id)).state, 'dead', `listJobs('${state}') listed ${listed.id}, whose row is not dead`);
    }
  }
}
