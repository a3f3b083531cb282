import { createHash } from 'node:crypto';

/**
 * One script as the build ships it: the file's own text, the libraries its header includes, and the
 * SHA1 of the composed source, computed by the generator when the package was built.
 */
export interface LuaScriptSource {
  /** The `.lua` file's text, header first. */
  readonly body: string;
  /** Library names from the header's `@include` lines, in order. */
  readonly includes: readonly string[];
  /** Lowercase hex SHA1 of {@link composeSource} over the included libraries and the body. */
  readonly sha: string;
}

/** Lowercase hex SHA1, as Redis computes it for `SCRIPT LOAD`. */
export function sha1(text: string): string {
  return createHash('sha1').update(text, 'utf8').digest('hex');
}

/**
 * The bytes Redis runs: the included libraries in `@include` order, then the body. The generator and
 * the run-time loader both call this, so the SHA the generator writes names exactly what is sent.
 */
export function composeSource(libs: readonly string[], body: string): string {
  return libs.length === 0 ? body : `${libs.join('\n')}\n${body}`;
}
