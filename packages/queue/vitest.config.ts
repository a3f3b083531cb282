import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { sharedConfig } from '../../vitest.shared.js';

/**
 * The fault tests that measure rates or race a fault against the work (drain rates against a
 * reference, kills while work remains, failovers inside a lease): they were tuned one at a time, and
 * two of them side by side measure each other (a drain timed while the kill test spawns its twelve
 * worker processes ran at a sixth of its reference). They run one after another, in a project of
 * their own, once the other files are done: run beside them (two vitest processes) they made the
 * queue's test the shortest chain of `pnpm test`, but the cluster failover test then missed its
 * drain on a loaded machine. The soak and the half-open link stay with the other files: they spend
 * their time waiting, on a steady child process and on a blackholed link.
 */
const ONE_AT_A_TIME = [
  // Listed in the order they run. First those whose time goes on waiting out an outage (a paused or
  // replaced primary, a replication window, an AOF replay, a paused client, a fence, a partition, a
  // full memory), while the package's other files still run beside them; last the three that
  // measure a drain against the clock or race a failover against a lease, by when the other files
  // are usually done (beside them under load, the cluster failover missed its 15 s drain).
  'test/chaos/sentinel-split-brain.test.ts',
  'test/chaos/replication-window.test.ts',
  'test/chaos/aof-restart.test.ts',
  'test/chaos/client-kill-pause.test.ts',
  'test/chaos/sentinel-failover.test.ts',
  'test/chaos/fence-change.test.ts',
  'test/chaos/partition.test.ts',
  'test/chaos/full-memory.test.ts',
  'test/chaos/failover.test.ts',
  'test/chaos/backpressure.test.ts',
  'test/chaos/kill-workers.test.ts',
];

/**
 * Files that take their time by design start first, so the short files fill the other worker beside
 * them. Vitest orders a run without timings from an earlier one (every CI run) by file size, which
 * started the minute-long soak last.
 */
const LONG_FIRST = ['test/chaos/soak.test.ts', 'test/chaos/half-open.test.ts'];

/** A sequencer that runs the files of `first` first, in its order, then the others as vitest sorts them. */
function inOrder(first: readonly string[]): typeof BaseSequencer {
  return class extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const rank = (file: TestSpecification): number => {
        const at = first.findIndex((path) => file.moduleId.endsWith(path));
        return at < 0 ? first.length : at;
      };
      return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
    }
  };
}

export default mergeConfig(
  sharedConfig,
  defineConfig({
    test: {
      // One sequencer for the run (vitest calls the root's for every project): the two lists share no file.
      sequence: { sequencer: inOrder([...LONG_FIRST, ...ONE_AT_A_TIME]) },
      projects: [
        { extends: true, test: { name: 'queue', exclude: [...configDefaults.exclude, ...ONE_AT_A_TIME] } },
        // Not `extends`, which would add the shared include globs to this list.
        // Each in a fresh process as well: a file that kills servers and spawns workers leaves nothing
        // (a half-closed socket, a timer) in a module graph the next one would share.
        { ...sharedConfig, test: { ...sharedConfig.test, name: 'chaos', include: ONE_AT_A_TIME, maxWorkers: 1, isolate: true, sequence: { groupOrder: 1 } } },
      ],
    },
  }),
);
