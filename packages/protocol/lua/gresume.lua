-- @script gresume
-- @purpose Lift a lane pause and put the lane back in rotation when it is serviceable, waking a
-- consumer if it joined (queue.md §5.4).
-- @key paused     emq:{q}:paused
-- @key ring       emq:{q}:ring
-- @key glimit     emq:{q}:glimit
-- @key gactive    emq:{q}:gactive
-- @key wake       emq:{q}:wake
-- @key lane       emq:{q}:g:<g>:pending
-- @arg g          the group's branded id
-- @include core lanes
-- @returns 1
-- @error EMQKIND group id must be a branded id
local g = a_g
if not vid(g) then return redis.error_reply('EMQKIND group id must be a branded id') end
redis.call('SREM', k_paused, g)
rering({ paused = k_paused, ring = k_ring, glimit = k_glimit, gactive = k_gactive, wake = k_wake }, k_lane, g)
return 1
