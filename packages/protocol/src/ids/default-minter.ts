import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { InvalidArgumentError } from '../errors/validation.js';
import type { BrandedId } from './branded.js';
import { IdMinter, NODE_COUNT, assertNodeId, type MintedId } from './minter.js';

/** Process-wide id settings for {@link configureIds}. */
export interface IdsConfig {
  /** The node for every id this process mints, an integer in 0..1023. */
  readonly node: number;
}

const NODE_ENV = 'ECHO_NODE_ID';

let processMinter: IdMinter | undefined;

function nodeFromEnv(): number | undefined {
  const raw = process.env[NODE_ENV];
  // An empty value is how shells and compose files usually spell "unset".
  if (raw === undefined || raw === '') return undefined;
  const node = /^[0-9]{1,4}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(node < NODE_COUNT)) {
    throw new InvalidArgumentError(NODE_ENV, `must be an integer in 0..1023, got ${JSON.stringify(raw)}`);
  }
  return node;
}

function nodeFromHost(): number {
  // Host name alone would give every process on one machine the same node; the pid separates them.
  const digest = createHash('sha256').update(`${hostname()}\0${process.pid}`).digest();
  return digest.readUInt16BE(0) % NODE_COUNT;
}

/**
 * The node that {@link mintId} uses: the configured node (or the one already in use), else
 * `ECHO_NODE_ID`, else a hash of the host name and process id. The hash makes a plain
 * `mintId('JOB')` work; it is not a uniqueness guarantee, so deployments that need one configure it.
 *
 * @throws InvalidArgumentError when `ECHO_NODE_ID` is set but is not an integer in 0..1023.
 */
export function defaultNodeId(): number {
  return processMinter?.node ?? nodeFromEnv() ?? nodeFromHost();
}

/**
 * Sets the node for this process's ids. May be called at any time: a later call swaps the minter but
 * continues its logical clock, so ids stay strictly increasing across the change.
 *
 * @throws InvalidArgumentError when `node` is not an integer in 0..1023.
 */
export function configureIds(config: IdsConfig): void {
  assertNodeId(config.node);
  processMinter =
    processMinter === undefined
      ? new IdMinter({ node: config.node })
      : new IdMinter({ node: config.node, continueFrom: processMinter });
}

/**
 * Mints an id in `namespace` from the process-wide minter, created on first use with
 * {@link defaultNodeId}.
 *
 * @throws InvalidArgumentError when `namespace` is not three `A`–`Z` bytes, or the node source is invalid.
 */
export function mintId<NS extends string>(namespace: NS): BrandedId<NS> {
  processMinter ??= new IdMinter({ node: defaultNodeId() });
  return processMinter.mint(namespace);
}

/**
 * Mints like {@link mintId}, and answers the snowflake's fields beside the id (see
 * `IdMinter.mintParts`).
 *
 * @throws InvalidArgumentError when `namespace` is not three `A`–`Z` bytes, or the node source is invalid.
 */
export function mintIdParts<NS extends string>(namespace: NS): MintedId<NS> {
  processMinter ??= new IdMinter({ node: defaultNodeId() });
  return processMinter.mintParts(namespace);
}
