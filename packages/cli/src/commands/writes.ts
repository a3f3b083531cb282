import { requireQueue, type CommandContext } from '../context.js';
import { UsageError } from '../exit-codes.js';
import { json } from '../format.js';

function done(ctx: CommandContext, message: string, result: Record<string, unknown>): void {
  ctx.io.out(ctx.json ? json({ ok: true, ...result }) : `${message}\n`);
}

/** `emq retry <queue> <id>` or `--all-dead`: dead jobs back to pending (`reprocess`). */
export async function retryCommand(ctx: CommandContext, name: string, id: string | undefined, allDead: boolean): Promise<void> {
  if ((id === undefined) === !allDead) throw new UsageError('give a job id or --all-dead, not both');
  const admin = await ctx.admin();
  if (id !== undefined) {
    await admin.retry(name, id);
    done(ctx, `retried ${id}`, { retried: [id] });
    return;
  }
  await requireQueue(admin, name);
  const { retried, skipped } = await admin.retryAllDead(name);
  done(ctx, `retried ${retried} dead job(s) in ${name}${skipped > 0 ? ` (${skipped} moved before their turn)` : ''}`, { retried, skipped });
}

/** `emq pause|resume <queue>`. */
export async function controlCommand(ctx: CommandContext, verb: 'pause' | 'resume', name: string): Promise<void> {
  const admin = await ctx.admin();
  await requireQueue(admin, name);
  await (verb === 'pause' ? admin.pause(name) : admin.resume(name));
  done(ctx, `${verb === 'pause' ? 'paused' : 'resumed'} ${name}`, { queue: name, paused: verb === 'pause' });
}

/** `emq drain <queue>`: deletes waiting jobs (and scheduled ones with `--include-scheduled`). */
export async function drainCommand(ctx: CommandContext, name: string, includeScheduled: boolean): Promise<void> {
  const admin = await ctx.admin();
  await requireQueue(admin, name);
  const removed = await admin.drain(name, { includeScheduled });
  done(ctx, `drained ${removed} job(s) from ${name}`, { queue: name, removed });
}
