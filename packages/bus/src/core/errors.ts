import { EchoError, type EvtId } from '@echo/protocol/bus';

/** One member of an {@link appendBatch}: its minted id, and whether the XADD landed. */
export type BatchAppendResult =
  | { readonly ok: true; readonly id: EvtId }
  | { readonly ok: false; readonly id: EvtId; readonly error: Error };

/**
 * Some records of a batch were refused. Records succeed or fail one by one (each its own XADD,
 * inside the batch's script or pipelined), so the members before and after a refusal may well
 * have landed; `results` says which, in append
 * order, and keeps the id minted for each refused member so it can be re-sent with `appendId`.
 * `cause` is the first refusal (for example a `NonMonotonicError`).
 */
export class BatchAppendError extends EchoError {
  /** Every member, in append order. */
  readonly results: readonly BatchAppendResult[];

  constructor(results: readonly BatchAppendResult[]) {
    const failed = results.flatMap((r) => (r.ok ? [] : [r.error]));
    const first = failed[0];
    super(
      'batch_append',
      `${failed.length} of ${results.length} appends were refused${first === undefined ? '' : `; first: ${first.message}`}`,
      first === undefined ? undefined : { cause: first },
    );
    this.results = results;
  }
}
