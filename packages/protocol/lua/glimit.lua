-- @script glimit
-- @purpose Set a lane's concurrency ceiling (queue.md §5.3): lowering it to or below the in-flight
-- count parks the lane; raising it can return the lane to rotation.
-- @key glimit     emq:{q}:glimit
-- @key gactive    emq:{q}:gactive
-- @key ring       emq:{q}:ring
-- @key paused     emq:{q}:paused
-- @key wake       emq:{q}:wake
-- @key lane       emq:{q}:g:<g>:pending
-- @arg g          the group's branded id
-- @arg n          the ceiling (>= 1)
-- @include core lanes
-- @returns 1
-- @error EMQKIND group id must be a branded id
local g = a_g
if not vid(g) then return redis.error_reply('EMQKIND group id must be a branded id') end
redis.call('HSET', k_glimit, g, a_n)
if tonumber(redis.call('HGET', k_gactive, g) or '0') >= tonumber(a_n) then
  redis.call('LREM', k_ring, 0, g)
else
  rering({ glimit = k_glimit, gactive = k_gactive, ring = k_ring, paused = k_paused, wake = k_wake }, k_lane, g)
end
return 1
