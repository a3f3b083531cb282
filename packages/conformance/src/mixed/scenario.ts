/** The shape of a mixed scenario: two actors on one queue, one Echo, one the spec-only runtime, in either order. */
import type { Queue } from '@echo/queue';
import type { SpecQueue } from '../spec-runtime/index.js';
import type { Actor } from './actors.js';

/** What a mixed scenario drives: `a` acts first, `b` second; `echo` and `spec` are the same queue seen by each runtime. */
export interface MixedEnv {
  readonly a: Actor;
  readonly b: Actor;
  /** Echo's queue handle (raw codec), for Echo's reads. */
  readonly echo: Queue<string>;
  /** The spec-only runtime's handle on the same queue. */
  readonly spec: SpecQueue;
  /** A plain command on the shared server, to read the rows' truth. */
  command(name: string, ...args: (string | number)[]): Promise<unknown>;
  /** Every key matching `pattern` on every master. */
  scan(pattern: string): Promise<string[]>;
  /** A fresh branded id (host mint) of `ns`. */
  mint(ns: string): string;
}

/** One mixed scenario, run once Echo → spec and once spec → Echo. */
export interface MixedScenario {
  readonly name: string;
  readonly contract: string;
  run(env: MixedEnv): Promise<void>;
}
