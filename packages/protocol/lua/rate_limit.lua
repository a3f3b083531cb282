-- @script rate_limit
-- @purpose [TS] Close the queue's rate window for `ms` from now (a handler that got a 429): the
-- limiter counter is set to meta.max with that deadline, so every claim (lib gate) and rate_ttl
-- read the queue as limited until then. A queue without a rate limit has no window to close.
-- @key meta       emq:{q}:meta
-- @key limiter    emq:{q}:limiter
-- @arg ms         how long to refuse claims, in ms (>= 1)
-- @returns 1 the window is closed; 0 the queue has no rate limit (nothing written)
local max = tonumber(redis.call('HGET', k_meta, 'max') or '') or 0
if max <= 0 or not redis.call('HGET', k_meta, 'duration') then return 0 end
redis.call('SET', k_limiter, max, 'PX', a_ms)
return 1
