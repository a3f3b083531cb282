#!/usr/bin/env bash
# The release check: what a user gets from npm, tried the way a user tries it.
#
#   1. pack every published package (prepack builds it) and read each tarball: no `@echo/source`
#      condition, no `workspace:` range, no test files; README, LICENSE and the built entry points in;
#   2. publint --strict and attw --profile esm-only on each tarball;
#   3. for each pillar, a fresh npm app and a fresh pnpm app that install it alone (with the
#      protocol it depends on) from the tarballs: typecheck a consumer under `nodenext` and
#      `bundler`, run it on Node against a real redis-server, bundle it with esbuild and run the lone
#      file, and require() every entry point from CommonJS;
#   4. the tools: a fresh npm app with @echo/dashboard alone that serves it on a free port and
#      loads the page (bundled and not) and require()s it; fresh npm and pnpm apps with
#      @echo/cli alone that run the packed `emq` bin (`--help`, `queues --json`) on the server;
#   5. one npm app with every tarball: typecheck every entry point, require() them all, and run the
#      packed `echo-conformance` bin on one scenario.
#
# Apps live outside the repository and the @echo scope points at nothing, so nothing can resolve
# to the workspace or to a package of the same name on the public registry.
# Needs: a build toolchain from `pnpm install`, and redis-server on PATH (or ECHO_REDIS_SERVER).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
started=$(date +%s)

PACKAGES=(protocol queue bus cache testkit conformance cli dashboard otel bullmq)
PILLARS=(queue bus cache)
bin="$root/node_modules/.bin"
work="$(mktemp -d "${TMPDIR:-/tmp}/echo-release-XXXXXX")"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

say() { echo "release-check [$(($(date +%s) - started)) s]: $*"; }
fail() { echo "release-check: FAIL $*" >&2; exit 1; }
# Runs a command quietly; on failure prints what it said and stops.
quiet() {
  local log="$work/last.log"
  if ! "$@" >"$log" 2>&1; then cat "$log" >&2; fail "$*"; fi
}

# 1. Pack. The build runs once through turbo (cached when fresh); each prepack then finds it done.
say "packing ${PACKAGES[*]}"
quiet pnpm exec turbo run build --output-logs=errors-only
mkdir -p "$work/tarballs"
for p in "${PACKAGES[@]}"; do
  (cd "packages/$p" && quiet pnpm pack --pack-destination "$work/tarballs")
done
tgz() { ls "$work/tarballs/echo-$1-"*.tgz; }

for p in "${PACKAGES[@]}"; do
  t="$(tgz "$p")"
  listing="$(tar tzf "$t")"
  manifest="$(tar xzf "$t" -O package/package.json)"
  grep -q '@echo/source' <<<"$manifest" && fail "$p: the published exports still carry the @echo/source condition"
  grep -q '"workspace:' <<<"$manifest" && fail "$p: a workspace: range was published"
  grep -Eq '\.test(-d)?\.(ts|js)$|\.test\.d\.ts$' <<<"$listing" && fail "$p: test files in the tarball: $(grep -E '\.test' <<<"$listing" | head -3)"
  for f in package/README.md package/LICENSE package/dist/index.js package/dist/index.d.ts; do
    grep -qx "$f" <<<"$listing" || fail "$p: $f missing from the tarball"
  done
  if [ -f "packages/$p/CHANGELOG.md" ]; then grep -qx package/CHANGELOG.md <<<"$listing" || fail "$p: CHANGELOG.md not shipped"; fi
  # Each bin ships and starts with a node shebang (npm links it as an executable).
  for target in $(node -e 'const b = JSON.parse(process.argv[1]).bin ?? {}; for (const t of typeof b === "string" ? [b] : Object.values(b)) console.log(t.replace(/^\.\//, ""))' "$manifest"); do
    grep -qx "package/$target" <<<"$listing" || fail "$p: bin $target missing from the tarball"
    [ "$(tar xzf "$t" -O "package/$target" | head -1)" = '#!/usr/bin/env node' ] || fail "$p: bin $target has no node shebang"
  done
  # A README image or link into the package's own published files (on unpkg) names a file it ships.
  name="$(node -e 'console.log(JSON.parse(process.argv[1]).name)' "$manifest")"
  for path in $(tar xzf "$t" -O package/README.md | grep -oE "https://unpkg\.com/$name(@[^/]+)?/[^) \"]+" | sed -E "s|^https://unpkg\.com/$name(@[^/]+)?/||"); do
    grep -qx "package/$path" <<<"$listing" || fail "$p: the README links $path on unpkg, which the tarball does not ship"
  done
done
# The manifests as written: prepack builds (a fresh clone packs no empty tarball), ioredis is a
# caret range (one copy shared with the app, patch fixes flow), READMEs link nothing relative
# (such links break on the registry's page).
node -e '
const { readFileSync } = require("node:fs");
let bad = 0;
for (const p of process.argv.slice(1)) {
  const m = JSON.parse(readFileSync(`packages/${p}/package.json`, "utf8"));
  if (!m.scripts || !m.scripts.prepack) { console.error(`${p}: no prepack script`); bad++; }
  for (const field of ["dependencies", "devDependencies", "peerDependencies"]) {
    const range = m[field] && m[field].ioredis;
    if (range !== undefined && !range.startsWith("^")) { console.error(`${p}: ioredis ${range} in ${field} is not a ^ range`); bad++; }
  }
  const readme = readFileSync(`packages/${p}/README.md`, "utf8");
  for (const link of readme.matchAll(/\]\((?!https?:|#)([^)]+)\)/g)) { console.error(`${p}: README links ${link[1]}, which breaks on npm`); bad++; }
}
process.exit(bad ? 1 : 0);' "${PACKAGES[@]}" || fail "package manifests"
say "tarballs: exports without @echo/source, no tests, README/LICENSE/dist/bins present; prepack, ioredis ^, no relative README links"

# 2. Lint the tarballs as published.
for p in "${PACKAGES[@]}"; do
  quiet "$bin/publint" --strict "$(tgz "$p")"
  quiet "$bin/attw" --profile esm-only --format ascii "$(tgz "$p")"
done
say "publint --strict and attw --profile esm-only: clean on ${#PACKAGES[@]} tarballs"

# A real server on a free port, for the apps to run against.
redis="${ECHO_REDIS_SERVER:-redis-server}"
port="$(node -e "const s=require('node:net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
mkdir -p "$work/redis"
"$redis" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work/redis" >"$work/redis/log" 2>&1 &
server_pid=$!
export REDIS_URL="redis://127.0.0.1:$port"
node -e "
const net = require('node:net');
const deadline = Date.now() + 10000;
(function ping() {
  const s = net.connect($port, '127.0.0.1', () => s.write('PING\r\n'));
  s.on('data', (d) => { s.destroy(); if (String(d).startsWith('+PONG')) process.exit(0); else retry(); });
  s.on('error', retry);
  function retry() { s.destroy(); if (Date.now() > deadline) process.exit(1); setTimeout(ping, 50); }
})();" || { cat "$work/redis/log" >&2; fail "redis-server did not answer PING"; }

# A consumer app: package.json, the app source and two tsconfigs (nodenext, bundler).
make_app() {
  local dir="$1" source="$2"
  mkdir -p "$dir/src"
  printf '{ "name": "echo-consumer", "version": "1.0.0", "private": true, "type": "module" }\n' >"$dir/package.json"
  cp "$root/scripts/release-check/$source" "$dir/src/app.ts"
  cp "$root/scripts/release-check/require-all.cjs" "$dir/require-all.cjs"
  local common='"target": "es2022", "lib": ["es2023"], "strict": true, "exactOptionalPropertyTypes": true, "noEmit": true, "skipLibCheck": false, "types": ["node"], "typeRoots": ["'"$root"'/node_modules/@types"]'
  printf '{ "compilerOptions": { "module": "nodenext", "moduleResolution": "nodenext", %s }, "files": ["src/app.ts"] }\n' "$common" >"$dir/tsconfig.nodenext.json"
  printf '{ "compilerOptions": { "module": "esnext", "moduleResolution": "bundler", %s }, "files": ["src/app.ts"] }\n' "$common" >"$dir/tsconfig.bundler.json"
  # Only the tarballs passed to the install may provide @echo packages.
  printf '@echo:registry=http://127.0.0.1:9/\nfetch-retries=0\naudit=false\nfund=false\nupdate-notifier=false\n' >"$dir/.npmrc"
}

# Both resolutions at once (two processes: each spends most of its time reading declarations).
typecheck() {
  local dir="$1" label="$2" mode pids=()
  for mode in nodenext bundler; do
    "$bin/tsc" -p "$dir/tsconfig.$mode.json" >"$dir/tsc-$mode.log" 2>&1 &
    pids+=($!)
  done
  for mode in nodenext bundler; do
    wait "${pids[0]}" || { cat "$dir/tsc-$mode.log" >&2; fail "$label: typecheck under $mode"; }
    pids=("${pids[@]:1}")
  done
}

# Typecheck under both resolutions, run on Node, bundle and run the lone file, require() from CJS.
try_app() {
  typecheck "$1" "$2"
  run_app "$1" "$2" "nodenext+bundler typecheck, "
}

# Run on Node, bundle and run the lone file, require() from CJS; $3 prefixes the report line.
run_app() {
  local dir="$1" label="$2" done="${3:-}"
  # Unbundled: the packages as Node resolves them from node_modules.
  quiet "$bin/esbuild" "$dir/src/app.ts" --bundle --packages=external --platform=node --format=esm --target=node20 --outfile="$dir/out/app.mjs" --log-level=warning
  local ran
  ran="$(cd "$dir" && node out/app.mjs)" || fail "$label: the app failed on Node"
  # Bundled: one file, run from a folder with no node_modules, so nothing is read from the packages.
  mkdir -p "$dir/lone"
  quiet "$bin/esbuild" "$dir/src/app.ts" --bundle --platform=node --format=esm --target=node20 --outfile="$dir/lone/app.mjs" --log-level=warning \
    "--banner:js=import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);"
  (cd "$dir/lone" && quiet node app.mjs) || fail "$label: the bundled app failed"
  local required
  required="$(cd "$dir" && node require-all.cjs 2>&1)" || { echo "$required" >&2; fail "$label: require() from CommonJS"; }
  say "$label: ${done}run $ran, esbuild bundle ran, $required"
}

# 3. Each pillar alone, from npm and from pnpm. The installs are mostly waiting on the registry
# (for ioredis), so all of them run at once; the checks after them run one app at a time.
install() {
  local dir="$1"
  shift
  (cd "$dir" && "$@") >"$dir/install.log" 2>&1
}
apps=()
pids=()
for pillar in "${PILLARS[@]}"; do
  dir="$work/apps/npm-$pillar"
  make_app "$dir" "$pillar.ts"
  install "$dir" npm install --no-package-lock "$(tgz protocol)" "$(tgz "$pillar")" &
  apps+=("$dir"); pids+=($!)

  dir="$work/apps/pnpm-$pillar"
  make_app "$dir" "$pillar.ts"
  # pnpm resolves a tarball's own dependencies from the registry; the override points the
  # protocol at its tarball instead.
  printf 'packages: []\nupdateNotifier: false\noverrides:\n  "@echo/protocol": "file:%s"\n' "$(tgz protocol)" >"$dir/pnpm-workspace.yaml"
  install "$dir" pnpm add "$(tgz protocol)" "$(tgz "$pillar")" &
  apps+=("$dir"); pids+=($!)
done
# The tools: the dashboard alone (with the protocol, queue, bus and cache it depends on), the CLI
# alone (with those and the dashboard).
dir="$work/apps/npm-dashboard"
make_app "$dir" dashboard.ts
install "$dir" npm install --no-package-lock "$(tgz protocol)" "$(tgz queue)" "$(tgz bus)" "$(tgz cache)" "$(tgz dashboard)" &
apps+=("$dir"); pids+=($!)
# The BullMQ face alone, with the queue and the protocol under it.
dir="$work/apps/npm-bullmq"
make_app "$dir" bullmq.ts
install "$dir" npm install --no-package-lock "$(tgz protocol)" "$(tgz queue)" "$(tgz bullmq)" &
apps+=("$dir"); pids+=($!)
cli_deps=(protocol queue bus cache dashboard)
dir="$work/apps/npm-cli"
mkdir -p "$dir"
cp "$root/scripts/release-check/require-all.cjs" "$dir/require-all.cjs"
printf '{ "name": "echo-cli-user", "version": "1.0.0", "private": true }\n' >"$dir/package.json"
printf '@echo:registry=http://127.0.0.1:9/\nfetch-retries=0\naudit=false\nfund=false\nupdate-notifier=false\n' >"$dir/.npmrc"
install "$dir" npm install --no-package-lock "$(tgz cli)" $(for p in "${cli_deps[@]}"; do tgz "$p"; done) &
apps+=("$dir"); pids+=($!)
dir="$work/apps/pnpm-cli"
mkdir -p "$dir"
cp "$work/apps/npm-cli/"{require-all.cjs,package.json,.npmrc} "$dir/"
{
  printf 'packages: []\nupdateNotifier: false\noverrides:\n'
  for p in "${cli_deps[@]}"; do printf '  "@echo/%s": "file:%s"\n' "$p" "$(tgz "$p")"; done
} >"$dir/pnpm-workspace.yaml"
# Under pnpm's strict layout the packed bin finds only what the packages declare.
install "$dir" pnpm add "$(tgz cli)" &
apps+=("$dir"); pids+=($!)

dir="$work/apps/npm-all"
make_app "$dir" everything.ts
all=()
for p in "${PACKAGES[@]}"; do all+=("$(tgz "$p")"); done
install "$dir" npm install --no-package-lock "${all[@]}" &
apps+=("$dir"); pids+=($!)
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { cat "${apps[$i]}/install.log" >&2; fail "install in ${apps[$i]##*/}"; }
done
say "installed ${#apps[@]} fresh apps from the tarballs (npm and pnpm, the @echo scope pointing at nothing)"

for pillar in "${PILLARS[@]}"; do
  try_app "$work/apps/npm-$pillar" "npm  @echo/$pillar"
  try_app "$work/apps/pnpm-$pillar" "pnpm @echo/$pillar"
done

try_app "$work/apps/npm-bullmq" "npm  @echo/bullmq"

# 4. The tools. The dashboard: serve and load it, bundled and not, and require() it. Its types are
# checked under both resolutions with every other entry point in step 5.
run_app "$work/apps/npm-dashboard" "npm  @echo/dashboard"
# The CLI: the packed `emq` bin as a user runs it, on the server above, with a queue to find.
(cd "$work/apps/npm-cli" && node --input-type=module -e "
import { Queue } from '@echo/queue';
const queue = await Queue.open('release-cli', { connect: process.env.REDIS_URL });
await queue.enqueue('x');
await queue.close();") || fail "seeding a queue for the CLI"
for pm in npm pnpm; do
  dir="$work/apps/$pm-cli"
  help="$(cd "$dir" && ./node_modules/.bin/emq --help 2>&1)" || { echo "$help" >&2; fail "$pm @echo/cli: emq --help"; }
  grep -q 'queues' <<<"$help" || { echo "$help" >&2; fail "$pm @echo/cli: emq --help lists no queues command"; }
  listed="$(cd "$dir" && ./node_modules/.bin/emq queues --json --url "$REDIS_URL" 2>"$dir/emq.err")" || { cat "$dir/emq.err" >&2; fail "$pm @echo/cli: emq queues --json"; }
  found="$(node -e '
const { queues } = JSON.parse(process.argv[1]);
const q = queues.find((s) => s.name === "release-cli");
if (!q || q.counts.pending !== 1) process.exit(1);
console.log(`${queues.length} queue(s), release-cli pending ${q.counts.pending}`);' "$listed")" || { echo "$listed" >&2; fail "$pm @echo/cli: emq queues --json did not list release-cli with its job"; }
  required="$(cd "$dir" && node require-all.cjs 2>&1)" || { echo "$required" >&2; fail "$pm @echo/cli: require() from CommonJS"; }
  say "$(printf '%-4s' "$pm") @echo/cli: emq --help, emq queues --json ($found), $required"
done

# 5. Everything at once: types of every entry point, require() of every entry point, the packed bin.
dir="$work/apps/npm-all"
typecheck "$dir" "all packages"
required="$(cd "$dir" && node require-all.cjs 2>&1)" || { echo "$required" >&2; fail "all packages: require() from CommonJS"; }
conformance="$(cd "$dir" && ./node_modules/.bin/echo-conformance --only fence 2>&1)" || { echo "$conformance" >&2; fail "the packed echo-conformance bin"; }
say "all packages: nodenext+bundler typecheck, $required"
# Quote the scenario's own line only: the tally line would read as this run's test count.
fence="$(grep -E '^CONF fence ' <<<"$conformance" || true)"
grep -q '^CONF fence ok' <<<"$fence" || { echo "$conformance" >&2; fail "the packed echo-conformance bin did not pass the fence scenario"; }
say "packed echo-conformance bin: ${fence%% -- *}"

say "passed in $(($(date +%s) - started)) s"
