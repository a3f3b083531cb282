import { VersionFenceError } from '../errors/connection.js';

/** The wire version this build claims in `{emq}:version` (protocol.md §10). */
export const WIRE_VERSION = 'echomq:3.0.0';
/** The fence key; the only reserve key Echo ever writes. */
export const FENCE_KEY = '{emq}:version';

const WIRE_MAJOR = 3;
const VERSION_SHAPE = /^echomq:(\d+)\.(\d+)\.(\d+)$/;

/**
 * Judges a stored fence value: the same major is accepted (additive minors interoperate); a
 * different major, a value that does not parse, or a value still absent after the claim is refused.
 */
export function judgeVersion(found: string | null): void {
  if (found === null) throw new VersionFenceError('foreign_version', null, WIRE_VERSION);
  const match = VERSION_SHAPE.exec(found);
  if (!match) throw new VersionFenceError('foreign_version', found, WIRE_VERSION);
  if (Number(match[1]) !== WIRE_MAJOR) throw new VersionFenceError('version_major_mismatch', found, WIRE_VERSION);
}

/** The three commands the fence needs, so it runs on any client shape. */
export interface FenceIo {
  get(key: string): Promise<string | null>;
  setNx(key: string, value: string): Promise<unknown>;
}

/**
 * Claim-or-verify: read the fence; when absent, claim it with `SET NX` (of two racing connectors
 * exactly one writes) and read again, judging whatever won. A present value is never rewritten.
 */
export async function claimOrVerify(io: FenceIo): Promise<string> {
  let found = await io.get(FENCE_KEY);
  if (found === null) {
    await io.setNx(FENCE_KEY, WIRE_VERSION);
    found = await io.get(FENCE_KEY);
  }
  judgeVersion(found);
  return found as string;
}
