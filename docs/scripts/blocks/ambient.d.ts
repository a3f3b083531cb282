/**
 * Stand-ins for the application around the docs' examples: what a page leaves to the reader's app
 * (a database, a mailer, a logger). Any checked block may use them without a prelude. Things the
 * page itself set up earlier (a `queue`, a `bus`) belong in that block's `<!-- prelude: -->`.
 */

interface AppUser {
  id: string;
  name: string;
  vip: boolean;
}

/** The app's own database. */
declare const db: {
  user(id: string): Promise<AppUser>;
};
/** The app's logger. */
declare const log: { info(fields: Record<string, unknown>): void; warn(fields: Record<string, unknown>): void };
