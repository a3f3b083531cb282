import { EchoError } from './echo-error.js';

/**
 * A call by a name Echo no longer uses: thrown at once, before anything is done, so code written
 * against the old name fails loudly with the name to call instead, rather than with a bare "is not
 * a function" or, worse, a silent alias that keeps two words for one thing. Every handle closes
 * with `close()` (no `stop()`, `shutdown()` or `quit()`), and a job's verdict is awaited one way.
 */
export class RenamedError extends EchoError {
  /** What was called, e.g. `RetentionDriver.stop()`. */
  readonly called: string;
  /** What to call instead, e.g. `RetentionDriver.close()`. */
  readonly use: string;

  constructor(called: string, use: string, why?: string) {
    super('renamed', `${called} is not Echo's name for this: call ${use}${why === undefined ? '' : ` (${why})`}`);
    this.called = called;
    this.use = use;
  }
}
