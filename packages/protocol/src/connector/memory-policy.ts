import { EvictionPolicyError } from '../errors/durability.js';
import { EchoError } from '../errors/echo-error.js';
import { PermissionError } from '../errors/wire.js';
import type { MasterNode } from './masters.js';
import type { EvictionPolicyMode } from './options.js';

/** The one policy under which Redis never drops a key to make room. */
const SAFE_POLICY = 'noeviction';

/** The `maxmemory_policy` field of an `INFO memory` reply, or `undefined` when absent. */
export function policyOf(info: string): string | undefined {
  return /^maxmemory_policy:(\S+)\r?$/m.exec(info)?.[1];
}

/**
 * Reads `maxmemory-policy` on every master and refuses (or warns about) one that may evict keys.
 * Even `volatile-*` policies are refused: Echo's expiring keys (lease markers, dedup keys, kept
 * results) mean something until they expire. `INFO` is used rather than `CONFIG GET`, which
 * least-privilege users rarely hold; when `INFO` is refused too the policy cannot be known, and
 * that is a warning rather than a failure, so an ACL user still connects.
 */
export async function checkEvictionPolicy(
  masters: readonly MasterNode[],
  mode: EvictionPolicyMode,
  warn: (warning: EchoError) => void,
  label: (node: MasterNode) => string = (node) => node.address,
): Promise<void> {
  if (mode === 'allow') return;
  for (const node of masters) {
    let info: string;
    try {
      info = String(await node.command('INFO', 'memory'));
    } catch (error) {
      if (!(error instanceof PermissionError)) throw error;
      warn(new EchoError('eviction_policy_unknown', `cannot read maxmemory-policy on ${label(node)} (${error.message}); grant +info, or connect with evictionPolicy: 'allow'`, { cause: error }));
      continue;
    }
    const policy = policyOf(info);
    if (policy === undefined || policy === SAFE_POLICY) continue;
    const refusal = new EvictionPolicyError(policy, label(node));
    if (mode === 'refuse') throw refusal;
    warn(refusal);
  }
}
