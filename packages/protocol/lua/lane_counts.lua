-- @script lane_counts
-- @purpose Read the depth of several lanes in one atomic step (queue.md §5.6).
-- @key laneroot   emq:{q}:g:
-- @args groups    the groups' branded ids, in request order
-- @include core
-- @returns a list of integers (ZCARD per lane) in request order; 0 for a group that fails vid
local out = {}
for i, g in ipairs(ARGV) do
  if vid(g) then out[i] = redis.call('ZCARD', gkey(k_laneroot, g)) else out[i] = 0 end
end
return out
