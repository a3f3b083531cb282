/** A. The state machine, scenario 18: a subscriber survives its socket being killed. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { LifecycleEvent } from '@echo/protocol';
import type { Scenario, ScenarioEnv } from '../scenario.js';
import type { ServerNode } from '../server-nodes.js';
import { present, until } from '../support.js';

/**
 * The node and server-side id of the subscribed client connection whose name contains `name` (a
 * cluster client names its subscriber connection after the caller's name, among others).
 */
async function subscriberNamed(nodes: readonly ServerNode[], name: string): Promise<{ node: ServerNode; id: string } | undefined> {
  for (const node of nodes) {
    const list = String(await node.command('CLIENT', 'LIST'));
    for (const line of list.split('\n')) {
      const named = / name=(\S*)/.exec(line)?.[1];
      const id = /^id=(\d+)/.exec(line)?.[1];
      const subscriptions = Number(/ sub=(\d+)/.exec(line)?.[1] ?? 0);
      if (named?.includes(name) && id !== undefined && subscriptions > 0) return { node, id };
    }
  }
  return undefined;
}

/** Subscribers of `channel` summed over every node (a cluster counts them per node). */
async function subscribers(nodes: readonly ServerNode[], channel: string): Promise<number> {
  let total = 0;
  for (const node of nodes) total += Number(((await node.command('PUBSUB', 'NUMSUB', channel)) as unknown[])[1]);
  return total;
}

async function resubscribe(env: ScenarioEnv): Promise<void> {
  const bus = await env.bus();
  const name = `conf-sub-${randomBytes(6).toString('hex')}`;
  const events = await bus.events({ connectionName: name });
  env.defer(() => events.close());
  const got: LifecycleEvent[] = [];
  events.on((e) => got.push(e));
  const first = env.mintId('JOB');
  await bus.publish('progress', first, { progress: '10' });
  await until(() => got.length === 1, 'the first message');

  const nodes = env.nodes();
  const killed = present(await subscriberNamed(nodes, name), `a subscribed client named ${name}`);
  await killed.node.command('CLIENT', 'KILL', 'ID', killed.id);
  // Back once a new connection under the name is subscribed and the channel has its subscriber again.
  await until(async () => {
    const now = await subscriberNamed(nodes, name);
    // Client ids count per node: a new subscriber on another node may well reuse the number.
    const fresh = now !== undefined && (now.node !== killed.node || now.id !== killed.id);
    return fresh && (await subscribers(nodes, bus.channel)) >= 1;
  }, 'the automatic reconnect and re-subscribe');

  const second = env.mintId('JOB');
  await bus.publish('completed', second);
  await until(() => got.length === 2, 'a message after the reconnect');
  assert.deepEqual(
    got.map((e) => [e.event, e.job]),
    [
      ['progress', first],
      ['completed', second],
    ],
  );
}

export const resubscribeDrill: Scenario[] = [
  {
    no: 18,
    name: 'resubscribe',
    family: 'state',
    contract: 'a RESP3 subscriber whose socket is killed still receives messages on the same channel after the automatic reconnect',
    run: resubscribe,
  },
];
