-- @script repeat_advance
-- @purpose Move a repeat's next run one cadence past server now, or drop a name whose record a
-- cancel removed (queue.md §10.1).
-- @key repeat     emq:{q}:repeat
-- @key record     emq:{q}:repeat:<name>
-- @arg name       the repeat name
-- @arg every_ms   the cadence in ms
-- @include core
-- @returns 1 advanced; 0 record gone (the name is removed)
if redis.call('EXISTS', k_record) == 0 then
  redis.call('ZREM', k_repeat, a_name)
  return 0
end
redis.call('ZADD', k_repeat, now_ms() + tonumber(a_every_ms), a_name)
return 1
