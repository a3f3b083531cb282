import { createHash } from 'node:crypto';

/** One spec-only script: its text and the SHA1 it is sent under (protocol.md §8). */
export interface SpecScript {
  readonly name: string;
  readonly source: string;
  readonly sha: string;
}

/** Builds a script from its parts; the SHA is of the exact bytes sent. */
export function specScript(name: string, ...parts: string[]): SpecScript {
  const source = `-- spec-only runtime: ${name}\n${parts.join('\n')}`;
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}
