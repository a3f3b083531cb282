import type { Admin } from '@echo/dashboard';
import { cac, type CAC } from 'cac';
import type * as commandsModule from './commands/index.js';
import { VERSION } from './version.js';
import type { CommandContext } from './context.js';
import type { GlobalFlags } from './connect-options.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import type { CliIo } from './io.js';

type Flags = GlobalFlags & Record<string, unknown>;

/** The commands' code, loaded when a command runs, not for `--help` (see commands/index.ts). */
type Commands = typeof commandsModule;
/** One module, so the bundled bin loads one chunk (and Node one graph) when a command runs. */
const load = (): Promise<Commands> => import('./commands/index.js');
/** What a command line selected: the work, and whether it ends itself on Ctrl-C (`watch`, `dashboard`). */
interface Run {
  readonly work: () => Promise<void>;
  readonly ownsStop: boolean;
}

/** Declares every command; each action only selects what to run, so errors surface in one place. */
function program(ctx: (flags: GlobalFlags) => CommandContext, io: CliIo, select: (run: Run) => void): CAC {
  const cli = cac('emq');
  // cac calls an action with the positional arguments, then the parsed options.
  const on =
    (run: (m: Commands, c: CommandContext, flags: Flags, args: unknown[]) => Promise<void>, ownsStop = false) =>
    (...parsed: unknown[]): void => {
      const flags = parsed[parsed.length - 1] as Flags;
      select({ work: async () => run(await load(), ctx(flags), flags, parsed.slice(0, -1)), ownsStop });
    };
  // Positional arguments arrive as strings; a number-looking one is still text here (a job id).
  const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

  cli.option('--url <url>', 'server URL (default: $REDIS_URL, then redis://127.0.0.1:6379)');
  cli.option('--cluster <seeds>', 'cluster seed nodes host:port,host:port (default: $ECHO_CLUSTER_SEEDS)');
  cli.option('--json', 'print JSON instead of tables');
  cli.option('--timeout <ms>', 'connect and reconnect patience in ms (default 5000)');
  cli.option('-v, --version', 'print the version of emq (@echo/cli)');

  cli.command('queues', 'list the queues on the server with their counts').action(on((m, c) => m.queuesCommand(c)));
  cli
    .command('stats <queue>', 'counts, pause state, completed/failed per second and workers')
    .option('--interval <ms>', 'rate window in ms (default 1000)')
    .action(on((m, c, f, [q]) => m.statsCommand(c, str(q), m.intFlag('interval', f.interval, 1000, 50, 600_000))));
  cli
    .command('jobs <queue>', 'one page of a state\'s jobs, oldest first')
    .option('--state <state>', 'pending | scheduled | active | dead | completed | failed (default: dead)')
    .option('--offset <n>', 'index of the first job (default 0)')
    .option('--limit <n>', 'jobs per page, 1..1000 (default 50)')
    .action(on((m, c, f, [q]) => m.jobsCommand(c, str(q), m.listState(f.state ?? 'dead'), m.intFlag('offset', f.offset, 0, 0), m.intFlag('limit', f.limit, 50, 1, 1000))));
  cli
    .command('job <queue> <id>', 'one job: name, key, result, finish time, scheduler, attempt history, payload, logs')
    .action(on((m, c, _f, [q, id]) => m.jobCommand(c, str(q), str(id))));
  cli.command('search <queue> <text>', 'find jobs by id, business key (or dedup id) or name').action(on((m, c, _f, [q, t]) => m.searchCommand(c, str(q), str(t))));
  cli
    .command('retry <queue> [...ids]', 'bring dead jobs back to pending (reprocess): those named, or --all-dead')
    .option('--all-dead', 'retry every dead job of the queue')
    .action(on((m, c, f, [q, ids]) => m.retryCommand(c, str(q), Array.isArray(ids) ? ids.map(str) : [], f.allDead === true)));
  cli.command('schedulers <queue>', 'the schedulers of a queue: pattern, next and last run').action(on((m, c, _f, [q]) => m.schedulersCommand(c, str(q))));
  cli
    .command('minutes <queue>', 'completions and failed attempts per minute')
    .option('--last <minutes>', 'how many minutes back, 1..10080 (default 60)')
    .action(on((m, c, f, [q]) => m.minutesCommand(c, str(q), m.intFlag('last', f.last, 60, 1, 10_080))));
  cli.command('pause <queue>', 'stop claims on a queue (admission and recovery go on)').action(on((m, c, _f, [q]) => m.controlCommand(c, 'pause', str(q))));
  cli.command('resume <queue>', 'let claims run again').action(on((m, c, _f, [q]) => m.controlCommand(c, 'resume', str(q))));
  cli
    .command('drain <queue>', 'delete the waiting jobs of a queue')
    .option('--include-scheduled', 'delete scheduled jobs too')
    .action(on((m, c, f, [q]) => m.drainCommand(c, str(q), f.includeScheduled === true)));
  cli.command('streams', 'list the stream logs with their groups and largest lag').action(on((m, c) => m.streamsCommand(c)));
  cli.command('lag <queue> <stream>', 'consumer-group lag of one stream').action(on((m, c, _f, [q, s]) => m.lagCommand(c, str(q), str(s))));
  cli
    .command('dlq <queue> <stream>', "a stream's dead letters, oldest first")
    .option('--limit <n>', 'dead letters per page, 1..1000 (default 100)')
    .option('--after <record>', 'the page after this dead-letter record id')
    .action(on((m, c, f, [q, s]) => m.dlqCommand(c, str(q), str(s), m.intFlag('limit', f.limit, 100, 1, 1000), typeof f.after === 'string' ? f.after : undefined)));
  cli
    .command('redrive <queue> <stream> [...ids]', 'put dead letters back for their group: the entries named, or --all')
    .option('--all', "every dead letter of the stream")
    .action(on((m, c, f, [q, s, ids]) => m.redriveCommand(c, str(q), str(s), Array.isArray(ids) ? ids.map(str) : [], f.all === true)));
  cli
    .command('watch <queue>', 'stats, refreshed until Ctrl-C')
    .option('--interval <ms>', 'refresh interval and rate window in ms (default 1000)')
    .option('--count <n>', 'stop after n refreshes')
    .action(on((m, c, f, [q]) => m.watchCommand(c, str(q), m.intFlag('interval', f.interval, 1000, 50, 600_000), f.count === undefined ? undefined : m.intFlag('count', f.count, 1, 1)), true));
  cli
    .command('dashboard', 'serve the web dashboard (@echo/dashboard) until Ctrl-C')
    .option('--port <port>', 'port to listen on (default 3000; 0 picks one)')
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .option('--read-only', 'refuse retry, remove, pause and resume')
    .action(
      on((m, _c, f) =>
        m.dashboardCommand(io, {
          connect: m.connectOptions(f, io.env),
          port: m.intFlag('port', f.port, 3000, 0, 65_535),
          host: typeof f.host === 'string' ? f.host : '127.0.0.1',
          readOnly: f.readOnly === true,
        }),
        true,
      ),
    );
  cli.help();
  return cli;
}

/**
 * `work`, or an {@link InterruptedError} as soon as `signal` aborts (Ctrl-C, SIGTERM): a command
 * waiting on a slow scan or an unreachable server stops at once; the connection is closed after,
 * which ends whatever the work still waits for.
 */
async function untilInterrupted(work: Promise<void>, signal: AbortSignal): Promise<void> {
  const { InterruptedError } = await load();
  // Left behind on an interrupt, its failure (the connection closing under it) is nobody's to hear.
  work.catch(() => undefined);
  let onAbort: (() => void) | undefined;
  const interrupted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new InterruptedError());
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([work, interrupted]);
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Runs `emq` with `argv` (the arguments after the binary's name) and answers the exit status;
 * see {@link EXIT}. Errors are printed to `io.err` as one line, never as a stack. When `io.signal`
 * aborts, a command stops at once with {@link EXIT}.interrupted (`watch` and `dashboard` end
 * normally instead); what it was still waiting for is abandoned, so the binary exits.
 */
export async function main(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  let admin: Promise<Admin> | undefined;
  const context = (flags: GlobalFlags): CommandContext => ({
    io,
    json: flags.json === true,
    admin: () =>
      (admin ??= load().then((m) => m.Admin.connect(m.connectOptions(flags, io.env)))),
  });
  let run: Run | undefined;
  let interrupted = false;
  try {
    const cli = program(context, io, (r) => (run = r));
    const parsed = cli.parse(['node', 'emq', ...argv], { run: false });
    if (parsed.options.help === true) return EXIT.ok;
    if (parsed.options.version === true) {
      io.out(parsed.options.json === true ? JSON.stringify({ name: '@echo/cli', version: VERSION }) + '\n' : `emq ${VERSION}\n`);
      return EXIT.ok;
    }
    if (cli.matchedCommand === undefined) {
      const word = parsed.args[0];
      if (word === undefined) {
        cli.outputHelp();
        return EXIT.usage;
      }
      throw new (await load()).UsageError(`unknown command ${JSON.stringify(word)} (emq --help lists them)`);
    }
    cli.runMatchedCommand();
    if (run === undefined) throw new (await load()).UsageError('no command to run');
    await (run.ownsStop ? run.work() : untilInterrupted(run.work(), io.signal));
    return EXIT.ok;
  } catch (error) {
    const { exitCodeOf, InterruptedError } = await load();
    interrupted = error instanceof InterruptedError;
    io.err(`emq: ${error instanceof Error ? error.message : String(error)}\n`);
    return exitCodeOf(error);
  } finally {
    const closing = admin?.then((a) => a.close()).catch(() => undefined);
    // An interrupted command may still be connecting (up to --timeout): it is closed when it
    // arrives, and the binary exits without waiting for it.
    if (!interrupted) await closing;
  }
}
