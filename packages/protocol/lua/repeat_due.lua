-- @script repeat_due
-- @purpose List the repeat names whose next run is due by the server clock, oldest first [TS].
-- @key repeat     emq:{q}:repeat
-- @arg limit      most names to return
-- @include core
-- @returns the due names, oldest first
return redis.call('ZRANGEBYSCORE', k_repeat, '-inf', now_ms(), 'LIMIT', 0, tonumber(a_limit))
