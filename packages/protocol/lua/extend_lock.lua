-- @script extend_lock
-- @purpose Push a held job's lease deadline out; only the current holder may (queue.md §6.3).
-- @key active     emq:{q}:active
-- @key row        emq:{q}:job:<id>
-- @arg id         the job's id
-- @arg token      the attempts value the claim returned
-- @arg lease_ms   the new lease, from server now
-- @include core
-- @returns 1
-- @error EMQSTALE job gone
-- @error EMQSTALE extend token mismatch
-- @error EMQSTALE not active
local attempts = redis.call('HGET', k_row, 'attempts')
if not attempts then return redis.error_reply('EMQSTALE job gone') end
if attempts ~= a_token then return redis.error_reply('EMQSTALE extend token mismatch') end
if not redis.call('ZSCORE', k_active, a_id) then return redis.error_reply('EMQSTALE not active') end
redis.call('ZADD', k_active, now_ms() + tonumber(a_lease_ms), a_id)
return 1
