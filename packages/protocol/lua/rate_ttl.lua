-- @script rate_ttl
-- @purpose Tell how long the queue's rate window still refuses work (queue.md §9.3).
-- @key limiter    emq:{q}:limiter
-- @key meta       emq:{q}:meta
-- @arg max        the window's cap; 0 uses meta.max
-- @returns ms still limited; 0 when not limited
local max = tonumber(a_max) or 0
if max <= 0 then max = tonumber(redis.call('HGET', k_meta, 'max') or '0') or 0 end
if max <= 0 then return 0 end
local used = tonumber(redis.call('GET', k_limiter) or '0') or 0
if used < max then return 0 end
local ttl = redis.call('PTTL', k_limiter)
if ttl > 0 then return ttl end
return 0
