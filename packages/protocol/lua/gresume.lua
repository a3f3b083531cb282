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
local g = ARGV[1]
if not vid(g) then return redis.error_reply('EMQKIND group id must be a branded id') end
redis.call('SREM', KEYS[1], g)
rering({ paused = KEYS[1], ring = KEYS[2], glimit = KEYS[3], gactive = KEYS[4], wake = KEYS[5] }, KEYS[6], g)
return 1
