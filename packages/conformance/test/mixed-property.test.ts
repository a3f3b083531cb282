/**
 * After any interleaving of the spec-only runtime's transitions with Echo's own dead-letters (which
 * write Echo's [TS] `dead:at` index and `finished_at` field), Echo's reads agree with the rows:
 * getJob, getState, counts and the dead listings (`assertEchoAgrees`), checked after every step.
 * Seeded, so a failure replays.
 */
import { mintId } from '@echo/protocol/extend';
import { Queue, rawCodec } from '@echo/queue';
import { useRedis } from '@echo/testkit';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createTarget, type ConformanceTarget } from '../src/index.js';
import { assertEchoAgrees, type ActorClaim, type MixedEnv } from '../src/mixed/index.js';
import { SpecRuntime, SpecScriptError } from '../src/spec-runtime/index.js';

const OPS = ['enqueue', 'laneEnqueue', 'claim', 'laneClaim', 'complete', 'retry', 'kill', 'delay', 'promote', 'reprocess', 'remove', 'echoKill'] as const;
type Op = (typeof OPS)[number];
interface Step {
  readonly op: Op;
  readonly pick: number;
}

let target: ConformanceTarget;
let client: Redis;
let runtime: SpecRuntime;
let n = 0;

beforeAll(async () => {
  const { url } = await useRedis();
  target = await createTarget({ connect: { url, strictKeys: true } });
  client = new Redis(url);
  runtime = await SpecRuntime.connect({ client });
}, 60_000);

afterAll(async () => {
  client.disconnect();
  await target.close();
});

/** The spec's refusals (a token another step moved past, a job no longer dead) are part of the game. */
async function tolerated(work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (error) {
    if (!(error instanceof SpecScriptError)) throw error;
  }
}

async function play(steps: readonly Step[]): Promise<void> {
  const name = `mixprop-${String(process.pid)}-${String(++n)}`;
  const echo = await Queue.open(name, { connection: target.connection, codec: rawCodec });
  const spec = runtime.queue(name);
  const env: MixedEnv = {
    a: undefined as never,
    b: undefined as never,
    echo,
    spec,
    command: (command, ...args) => target.connection.command(command, ...args),
    scan: (pattern) => target.scanKeys(pattern),
    mint: (ns) => mintId(ns),
  };
  const ids: string[] = [];
  const held: ActorClaim[] = [];
  const groups = [mintId('PRT'), mintId('PRT')];
  const pickId = (pick: number): string | undefined => ids[pick % Math.max(ids.length, 1)];
  const takeHeld = (pick: number): ActorClaim | undefined => (held.length === 0 ? undefined : held.splice(pick % held.length, 1)[0]);
  try {
    for (const { op, pick } of steps) {
      switch (op) {
        case 'enqueue':
          ids.push(await spec.enqueue(`p${String(ids.length)}`));
          break;
        case 'laneEnqueue':
          ids.push(await spec.laneEnqueue(groups[pick % 2] ?? '', `l${String(ids.length)}`));
          break;
        case 'claim':
        case 'laneClaim': {
          const job = op === 'claim' ? await spec.claim(30_000) : await spec.laneClaim(30_000);
          if (job) held.push(job);
          break;
        }
        case 'complete':
        case 'retry':
        case 'kill':
        case 'delay': {
          const job = takeHeld(pick);
          if (!job) break;
          if (op === 'complete') await tolerated(spec.complete(job.id, job.token));
          else if (op === 'delay') await tolerated(spec.delay(job.id, job.token, 0));
          else await tolerated(spec.retry(job.id, job.token, 0, op === 'kill' ? 1 : 99, `e${String(pick)}`));
          break;
        }
        case 'promote':
          await spec.promote();
          break;
        case 'reprocess': {
          const id = pickId(pick);
          if (id !== undefined) await tolerated(spec.reprocess(id));
          break;
        }
        case 'remove': {
          const id = pickId(pick);
          if (id !== undefined) await tolerated(spec.remove(id));
          break;
        }
        case 'echoKill': {
          // Echo claims (flat or lane) and dead-letters: its own dead:at entry and finished_at field.
          const job = (await echo.leases().claim(30_000)) ?? (await echo.leases().laneClaim(30_000));
          if (job) await echo.leases().retry(job, 0, 1, 'echo-poison');
          break;
        }
      }
      await assertEchoAgrees(env, ids);
    }
  } finally {
    await echo.close();
    const keys = await target.scanKeys(`emq:{${name}}:*`);
    if (keys.length > 0) await target.connection.command('DEL', ...keys);
  }
}

describe("Echo's reads after random interleavings with the spec-only runtime", () => {
  it('agree with the rows after every step (seeded)', { timeout: 120_000 }, async () => {
    const step = fc.record({ op: fc.constantFrom(...OPS), pick: fc.nat({ max: 1000 }) });
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 30 }), play), { seed: 20261202, numRuns: 25 });
  });
});
