-- @script counts
-- @purpose Read several counters in one atomic step: set sizes and metrics counts, in request order
-- (queue.md §9.1).
-- @key laneroot  emq:{q}:g: [TS]: the root of the lanes, for "g"
-- @keys targets   the requested set keys and/or emq:{q}:metrics:* keys, in request order ([TS] and
-- emq:{q}:waiting-children; [TS] for "g", emq:{q}:ring followed by the four other keys that name
-- the lanes: emq:{q}:paused, emq:{q}:glimit, emq:{q}:gactive, emq:{q}:gweight)
-- @args kinds     one per key: "z" (ZCARD), "m" (HGET count, absent reads 0), [TS] "s" (SCARD), [TS]
-- "g" (jobs pending in every lane, each lane found through its key and the four after it, which
-- take the kind "-" and answer nothing of their own)
-- @include core
-- @returns a list of integers in request order, one per kind that is not "-"
local out = {}

for i = 2, #KEYS do
  local key, kind = KEYS[i], ARGV[i - 1]
  if kind == 'z' then
    out[#out + 1] = redis.call('ZCARD', key)
  elseif kind == 's' then
    out[#out + 1] = redis.call('SCARD', key)
  elseif kind == 'g' then
    -- [TS] Every lane with a pending job is named by one of the five keys (invariant I6: a non-empty
    -- lane is in the ring unless it is paused or at its ceiling), so the sum misses none and counts
    -- each lane once.
    local names = redis.call('LRANGE', key, 0, -1)
    for _, g in ipairs(redis.call('SMEMBERS', KEYS[i + 1])) do names[#names + 1] = g end
    for _, g in ipairs(redis.call('HKEYS', KEYS[i + 2])) do names[#names + 1] = g end
    for _, g in ipairs(redis.call('HKEYS', KEYS[i + 3])) do names[#names + 1] = g end
    for _, g in ipairs(redis.call('HKEYS', KEYS[i + 4])) do names[#names + 1] = g end
    local seen, total = {}, 0
    for _, g in ipairs(names) do
      if not seen[g] and vid(g) then
        seen[g] = true
        total = total + redis.call('ZCARD', gkey(k_laneroot, g))
      end
    end
    out[#out + 1] = total
  elseif kind ~= '-' then
    out[#out + 1] = tonumber(redis.call('HGET', key, 'count') or '0')
  end
end
return out
