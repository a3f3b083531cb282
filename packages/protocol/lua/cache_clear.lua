-- @script cache_clear
-- @purpose [TS] Announce that a keyed namespace is cleared: every process drops L1 entries older than the
-- version. The entries themselves are deleted after, in batches (`cache_delete` in quiet mode).
-- @key log        ecc:{t}:log
-- @arg version    the clear's 14-byte version
-- @arg maxlen     the log's approximate bound
-- @include core
-- @returns the log entry's id
return redis.call('XADD', k_log, 'MAXLEN', '~', a_maxlen, '*', 'v', a_version, 'o', 'c', 'k', '')
