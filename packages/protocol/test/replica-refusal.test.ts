/**
 * A primary under `min-replicas-to-write` refuses writes with `NOREPLICAS` while too few replicas
 * are attached and in time: the connector types that refusal as `NotEnoughReplicasError`, a lost
 * connection that is known not to have run, and nothing of the refused transition is written.
 */
import { rejection, startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, ConnectionLostError, EchoError, mapReplyError, mintId, NotEnoughReplicasError, queueKeys, scripts, type JobId } from './support.js';

function reply(message: string): Error {
  const error = new Error(message);
  error.name = 'ReplyError';
  return error;
}

describe('NOREPLICAS in the registry', () => {
  it('maps the bare reply and the one from inside a script to NotEnoughReplicasError', () => {
    for (const message of [
      'NOREPLICAS Not enough good replicas to write.',
      'NOREPLICAS Not enough good replicas to write. script: d48444da599e9d5cfaba93f7b017d322cec174d6, on @user_script:1.',
    ]) {
      const mapped = mapReplyError(reply(message));
      expect(mapped).toBeInstanceOf(NotEnoughReplicasError);
      expect(mapped).toBeInstanceOf(ConnectionLostError);
      expect(mapped instanceof EchoError && mapped.code).toBe('not_enough_replicas');
      expect(mapped.message).toContain(message);
    }
  });
});

describe('a primary without the replicas min-replicas-to-write asks for', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('refuses a transition with NotEnoughReplicasError, writes nothing of it, and takes writes again once allowed', async () => {
    // Connect first: the fence claim is itself a write.
    const conn = await Connection.connect({ url: server.url, strictKeys: true });
    const admin = server.client();
    try {
      const k = queueKeys('noreplicas');
      const enqueue = (id: JobId): Promise<unknown> => conn.run(scripts().enqueue, [k.job(id), k.pending, k.events, k.meta, k.journal], [id, 'p']);
      await admin.config('SET', 'min-replicas-to-write', '1');
      const refusedId = mintId('JOB');
      const error = await rejection(enqueue(refusedId));
      expect(error).toBeInstanceOf(NotEnoughReplicasError);
      expect(await admin.exists(k.job(refusedId))).toBe(0);
      expect(await admin.zcard(k.pending)).toBe(0);

      await admin.config('SET', 'min-replicas-to-write', '0');
      const acceptedId = mintId('JOB');
      await enqueue(acceptedId);
      expect(await admin.exists(k.job(acceptedId))).toBe(1);
    } finally {
      admin.disconnect();
      await conn.close();
    }
  });
});
