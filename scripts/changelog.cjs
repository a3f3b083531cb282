// The changelog generator `changeset version` uses (see .changeset/config.json). The repository has
// no public URL yet, so entries carry no commit hash: a bare hash links nowhere for a reader on npm.
// Each entry's first line ends with an `<!--order:SECONDS-->` marker (inline, so the markdown
// formatter changesets runs leaves the list alone), the time of the commit that added its changeset, which `scripts/tidy-changelogs.ts` sorts by (oldest first) and removes; changesets
// itself lists entries in file-name order.
'use strict';
const { execFileSync } = require('node:child_process');

/** Seconds since the epoch of a commit; changesets not committed yet sort last. */
function orderOf(commit) {
  if (!commit) return Number.MAX_SAFE_INTEGER;
  try {
    return Number(execFileSync('git', ['show', '-s', '--format=%ct', commit], { encoding: 'utf8' }).trim());
  } catch {
    return Number.MAX_SAFE_INTEGER;
  }
}

async function getReleaseLine(changeset) {
  const [first, ...rest] = changeset.summary.split('\n').map((line) => line.trimEnd());
  const more = rest.length > 0 ? `\n${rest.map((line) => (line === '' ? '' : `  ${line}`)).join('\n')}` : '';
  return `- ${first} <!--order:${orderOf(changeset.commit)}-->${more}`;
}

async function getDependencyReleaseLine(_changesets, updated) {
  if (updated.length === 0) return '';
  return `- Updated dependencies: ${updated.map((d) => `${d.name}@${d.newVersion}`).join(', ')} <!--order:${Number.MAX_SAFE_INTEGER}-->`;
}

module.exports = { getReleaseLine, getDependencyReleaseLine };
