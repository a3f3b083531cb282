import { serveDashboard, type ServeOptions } from '@echo/dashboard';
import type { CliIo } from '../io.js';
import { aborted } from '../io.js';

/** `emq dashboard`: serves the web dashboard until Ctrl-C. */
export async function dashboardCommand(io: CliIo, options: ServeOptions): Promise<void> {
  const running = await serveDashboard(options);
  io.out(`dashboard on ${running.url}${options.readOnly === true ? ' (read-only)' : ''}; Ctrl-C to stop\n`);
  await aborted(io.signal);
  await running.close();
}
