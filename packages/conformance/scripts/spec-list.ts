/**
 * The scenario list of conformance.md, as the catalogue check needs it: the numbered scenarios
 * (number and name, in table order) and the TS-only extensions. The spec lives outside the
 * repository, so a copy is vendored in `spec/scenarios.json`; this module reads either.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One numbered scenario of conformance.md. */
export interface SpecScenario {
  readonly no: number;
  readonly name: string;
}

/** The scenario list: what the catalogue must match, name for name and in order. */
export interface SpecList {
  readonly scenarios: readonly SpecScenario[];
  readonly extensions: readonly string[];
}

/** The vendored copy, with a note of where it came from. */
export interface VendoredSpec extends SpecList {
  readonly source: string;
  readonly regenerate: string;
}

/** Where the vendored copy lives in this package. */
export const VENDORED_PATH = fileURLToPath(new URL('../spec/scenarios.json', import.meta.url));

/**
 * Where conformance.md is looked for: `CONFORMANCE_SPEC`, else the shared spec folder beside the
 * repository (`../shared/spec/`), which a fresh clone does not have.
 */
export function specPath(): string {
  return process.env.CONFORMANCE_SPEC ?? fileURLToPath(new URL('../../../../shared/spec/conformance.md', import.meta.url));
}

/** The numbered rows (`| 12 | \`rotate\` | …`) and the extension rows (`| \`ts_…\` | …`) of conformance.md. */
export function parseSpec(markdown: string): SpecList {
  const scenarios = [...markdown.matchAll(/^\| (\d+) \| `([a-z0-9_]+)`/gm)].map((m) => ({ no: Number(m[1]), name: String(m[2]) }));
  const extensions = [...markdown.matchAll(/^\| `(ts_[a-z0-9_]+)` \|/gm)].map((m) => String(m[1]));
  return { scenarios, extensions };
}

/** The vendored list, as committed. */
export function readVendored(): VendoredSpec {
  return JSON.parse(readFileSync(VENDORED_PATH, 'utf8')) as VendoredSpec;
}
