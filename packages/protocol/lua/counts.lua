-- @script counts
-- @purpose Read several counters in one atomic step: set sizes and metrics counts, in request order
-- (queue.md §9.1).
-- @keys targets   the requested set keys and/or emq:{q}:metrics:* keys, in request order ([TS] and
-- emq:{q}:waiting-children)
-- @args kinds     one per key: "z" (ZCARD), "m" (HGET count, absent reads 0) or [TS] "s" (SCARD)
-- @returns a list of integers in request order
local out = {}
for i, key in ipairs(KEYS) do
  if ARGV[i] == 'z' then
    out[i] = redis.call('ZCARD', key)
  elseif ARGV[i] == 's' then
    out[i] = redis.call('SCARD', key)
  else
    out[i] = tonumber(redis.call('HGET', key, 'count') or '0')
  end
end
return out
