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
 * What one master says about its policy: nothing when it cannot evict, else the error to raise or
 * warn with. `INFO` is used rather than `CONFIG GET`, which least-privilege users rarely hold; when
 * `INFO` is refused too the policy cannot be known, and that is only a warning, so an ACL user
 * still connects.
 */
async function judgeNode(node: MasterNode, label: string): Promise<EchoError | undefined> {
  let info: string;
  try {
    info = String(await node.command('INFO', 'memory'));
  } catch (error) {
    if (!(error instanceof PermissionError)) throw error;
    return new EchoError('eviction_policy_unknown', `cannot read maxmemory-policy on ${label} (${error.message}); grant +info, or connect with evictionPolicy: 'allow'`, { cause: error });
  }
  const policy = policyOf(info);
  return policy === undefined || policy === SAFE_POLICY ? undefined : new EvictionPolicyError(policy, label);
}

/**
 * The eviction-policy check of a connection and of the connections duplicated from it. It runs on
 * every (re)connect before the version fence is claimed, so a refused open writes nothing, and a
 * policy changed while the socket was down is heard on the way back. Even `volatile-*` policies
 * count: Echo's expiring keys (lease markers, dedup keys, kept results) mean something until they
 * expire. Under `refuse` the check throws {@link EvictionPolicyError}; under `warn` each master's
 * warning is given once per policy, not once per socket, and again only after it changed.
 */
export class PolicyWatch {
  readonly #mode: EvictionPolicyMode;
  readonly #warn: (warning: EchoError) => void;
  readonly #label: (node: MasterNode) => string;
  /** The last warning given per master, so duplicates and reconnects do not repeat it. */
  readonly #said = new Map<string, string>();

  constructor(mode: EvictionPolicyMode, warn: (warning: EchoError) => void, label: (node: MasterNode) => string = (node) => node.address) {
    this.#mode = mode;
    this.#warn = warn;
    this.#label = label;
  }

  /** Reads the policy of every master (no `INFO` at all under `allow`). */
  async check(masters: readonly MasterNode[]): Promise<void> {
    if (this.#mode === 'allow') return;
    for (const node of masters) {
      const label = this.#label(node);
      const verdict = await judgeNode(node, label);
      if (verdict === undefined) {
        this.#said.delete(label);
        continue;
      }
      if (verdict instanceof EvictionPolicyError && this.#mode === 'refuse') throw verdict;
      if (this.#said.get(label) === verdict.message) continue;
      this.#said.set(label, verdict.message);
      this.#warn(verdict);
    }
  }
}
