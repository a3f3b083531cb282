-- @script cache_release
-- @purpose [TS] Give back a load lease whose loader failed, and say so on the coherence log so that the
-- callers waiting in other processes retry at once instead of at the lease's expiry.
-- @key lease      ecc:{t}:l:<key>
-- @key log        ecc:{t}:log
-- @arg token      the lease token the caller took
-- @arg maxlen     the log's approximate bound
-- @arg name       the entry's key
-- @include core
-- @returns 1 released; 0 the lease was not the caller's
if redis.call('GET', k_lease) ~= a_token then return 0 end
redis.call('DEL', k_lease)
redis.call('XADD', k_log, 'MAXLEN', '~', a_maxlen, '*', 'v', '', 'o', 'r', 'k', a_name)
return 1
