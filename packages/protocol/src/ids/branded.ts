/**
 * The brand exists only in the type system: a `declare`d unique symbol has no runtime value, so a
 * branded id is a plain string at run time and costs nothing, yet two namespaces stay nominally apart.
 */
declare const brand: unique symbol;

/**
 * A 14-byte branded id (protocol.md §4): a three-letter namespace followed by an 11-byte Base62
 * snowflake. `NS` carries the namespace so that, for example, a `USR` id cannot be passed where a
 * `JOB` id is expected. The wide form `BrandedId` (namespace `string`) accepts any namespace.
 *
 * Values of this type come only from {@link encodeId}, {@link parseId}, {@link mintId} or a guard,
 * so holding one means the bytes were checked.
 */
export type BrandedId<NS extends string = string> = string & { readonly [brand]: NS };

/** A job id: the only namespace the admission scripts accept (protocol.md §1). */
export type JobId = BrandedId<'JOB'>;

/** A bus event id; its snowflake also fixes the record's XADD id (bus.md §3). */
export type EvtId = BrandedId<'EVT'>;
