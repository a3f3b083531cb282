-- @script rate_reset
-- @purpose [TS] Open the queue's rate window now (BullMQ's removeRateLimitKey): the limiter counter
-- is deleted, so the next claim starts a fresh window; the limit itself (meta max, duration) stays.
-- @key limiter    emq:{q}:limiter
-- @returns 1 a window was open and is now reset; 0 there was none
return redis.call('DEL', k_limiter)
