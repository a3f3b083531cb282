/**
 * The commands the cache's typed reads send, in ACL spelling (lower case): the source of the cache
 * host's ACL list (acl.ts), kept equal to what `reads/cache` builds by a unit test.
 */
export const CACHE_READ_COMMANDS = ['get', 'mget', 'hkeys', 'scan'] as const;
