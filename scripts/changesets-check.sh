#!/usr/bin/env bash
# Versions a scratch clone of HEAD the way a release does (`changeset version`, then the changelog
# tidy step of `pnpm version-packages`) and reads the changelogs it wrote: no version or change-type
# heading without entries under it, no bare commit hashes, no ordering markers left behind.
# Committed changesets only: it clones HEAD.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/echo-changesets-XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

git clone -q --no-checkout "$root" "$scratch/repo"
cd "$scratch/repo"
git checkout -q "$(git -C "$root" rev-parse HEAD)"
ln -s "$root/node_modules" node_modules
pending=$(find .changeset -name '*.md' ! -name README.md | wc -l)
if [ "$pending" -eq 0 ]; then echo "changesets-check: no pending changesets, nothing to version"; exit 0; fi

"$root/node_modules/.bin/changeset" version >"$scratch/version.log" 2>&1 || { cat "$scratch/version.log" >&2; exit 1; }
"$root/node_modules/.bin/tsx" scripts/tidy-changelogs.ts

node -e '
const { readFileSync, existsSync } = require("node:fs");
let bad = 0;
const seen = [];
for (const p of process.argv.slice(1)) {
  const file = `packages/${p}/CHANGELOG.md`;
  if (!existsSync(file)) continue;
  const lines = readFileSync(file, "utf8").split("\n");
  const version = JSON.parse(readFileSync(`packages/${p}/package.json`, "utf8")).version;
  seen.push(`@echo/${p}@${version}`);
  lines.forEach((line, i) => {
    const fail = (why) => { console.error(`${file}:${i + 1}: ${why}: ${line}`); bad++; };
    if (/^#{2,3} /.test(line)) {
      let j = i + 1;
      while (j < lines.length && lines[j].trim() === "") j++;
      // A version (##) needs a change-type section or an entry; a change type (###) needs an entry.
      const next = /^## /.test(line) ? /^#{1,2} / : /^#{1,3} /;
      if (j === lines.length || next.test(lines[j])) fail("a heading with nothing under it");
    }
    if (/^\s*- (Updated dependencies \[)?[0-9a-f]{7,40}\b/.test(line)) fail("a bare commit hash");
    if (line.includes("<!--order:")) fail("an ordering marker left behind");
  });
}
if (bad) process.exit(1);
console.log(`changesets-check: changeset version writes clean changelogs for ${seen.join(", ")}`);
' protocol queue bus cache testkit conformance cli dashboard
