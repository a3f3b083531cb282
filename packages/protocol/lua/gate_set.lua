-- @script gate_set
-- @purpose [TS] Set or clear the claim gates kept in meta that the claims enforce (lib gate): the
-- global concurrency cap `concurrency`, and the rate limit of `max` jobs per `duration` ms. Clearing
-- or changing the rate limit drops the current window's counter, so the new limit starts afresh.
-- @key meta       emq:{q}:meta
-- @key limiter    emq:{q}:limiter
-- @arg concurrency  "" leaves it; "0" clears it; else the cap on active jobs across all workers
-- @arg max          "" leaves the rate limit; "0" clears it; else the jobs one window admits
-- @arg duration     the window in ms when max is set; else ""
-- @returns 1
if a_concurrency == '0' then
  redis.call('HDEL', k_meta, 'concurrency')
elseif a_concurrency ~= '' then
  redis.call('HSET', k_meta, 'concurrency', a_concurrency)
end
if a_max == '0' then
  redis.call('HDEL', k_meta, 'max', 'duration')
  redis.call('DEL', k_limiter)
elseif a_max ~= '' then
  redis.call('HSET', k_meta, 'max', a_max, 'duration', a_duration)
  redis.call('DEL', k_limiter)
end
return 1
