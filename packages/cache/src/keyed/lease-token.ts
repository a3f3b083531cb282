import { randomBytes } from 'node:crypto';

/**
 * Lease tokens: a random prefix drawn once per process, then a counter. A token only has to differ
 * from every other live holder's, across processes, so per-call cryptographic randomness buys
 * nothing; the prefix's 72 bits keep two processes apart.
 */
const PREFIX = randomBytes(9).toString('base64url');
let counter = 0;

/** A lease token no other call of any process holds. */
export function nextLeaseToken(): string {
  counter++;
  return PREFIX + counter.toString(36);
}
