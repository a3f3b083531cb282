import { requireQueue, type CommandContext } from '../context.js';
import { SelectionError, UsageError } from '../errors.js';
import { json } from '../format.js';

function done(ctx: CommandContext, message: string, result: Record<string, unknown>): void {
  ctx.io.out(ctx.json ? json({ ok: true, ...result }) : `${message}\n`);
}

/**
 * `emq retry <queue> <id...>` or `--all-dead`: dead jobs back to pending (`reprocess`). One id
 * fails with its typed error (its exit status); several are a selection: each is tried, the refused
 * ones are listed, and the status is 1 when any was refused.
 */
export async function retryCommand(ctx: CommandContext, name: string, ids: readonly string[], allDead: boolean): Promise<void> {
  if ((ids.length === 0) === !allDead) throw new UsageError('give job ids or --all-dead, not both');
  const admin = await ctx.admin();
  await requireQueue(admin, name);
  const [id] = ids;
  if (ids.length === 1 && id !== undefined) {
    await admin.retry(name, id);
    done(ctx, `retried ${id}`, { retried: [id] });
    return;
  }
  if (ids.length > 1) {
    const result = await admin.bulk(name, 'retry', ids);
    const refused = result.outcomes.filter((o) => !o.ok);
    if (ctx.json) ctx.io.out(json({ ok: refused.length === 0, retried: result.outcomes.filter((o) => o.ok).map((o) => o.id), refused }));
    else ctx.io.out(`retried ${String(result.done)} of ${String(ids.length)} job(s) in ${name}${refused.map((o) => `\n  ${o.id}: ${o.error ?? ''} ${o.message ?? ''}`).join('')}\n`);
    if (refused.length > 0) throw new SelectionError(`${String(refused.length)} of ${String(ids.length)} job(s) refused`);
    return;
  }
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
