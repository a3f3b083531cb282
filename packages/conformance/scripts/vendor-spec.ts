/**
 * Re-vendors the scenario list from conformance.md into `spec/scenarios.json`, so the catalogue
 * check runs in a clone that has no `../shared/spec`. Run it after the spec gains a scenario:
 *
 *   pnpm --filter @echo/conformance run vendor-spec
 *   CONFORMANCE_SPEC=/path/to/conformance.md pnpm --filter @echo/conformance run vendor-spec
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseSpec, specPath, VENDORED_PATH, type VendoredSpec } from './spec-list.js';

const list = parseSpec(readFileSync(specPath(), 'utf8'));
const vendored: VendoredSpec = {
  source: 'conformance.md of the EchoMQ spec (shared/spec/conformance.md beside this repository): its numbered scenario table and its TS-only extension table',
  regenerate: 'pnpm --filter @echo/conformance run vendor-spec (reads CONFORMANCE_SPEC, else ../shared/spec/conformance.md)',
  ...list,
};
const rows = (items: readonly unknown[]): string => items.map((item) => `    ${JSON.stringify(item)}`).join(',\n');
writeFileSync(
  VENDORED_PATH,
  `{\n  "source": ${JSON.stringify(vendored.source)},\n  "regenerate": ${JSON.stringify(vendored.regenerate)},\n` +
    `  "scenarios": [\n${rows(list.scenarios)}\n  ],\n  "extensions": [\n${rows(list.extensions)}\n  ]\n}\n`,
);
console.log(`${list.scenarios.length} scenarios and ${list.extensions.length} extensions written to ${VENDORED_PATH}`);
