/**
 * The commands the cache's typed plain writes send, in ACL spelling (lower case): the source of the
 * cache host's ACL list (acl.ts), kept equal to what `writes/cache` builds by a unit test.
 */
export const CACHE_WRITE_COMMANDS = ['set', 'del', 'publish'] as const;
