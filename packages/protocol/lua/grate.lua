-- @script grate
-- @purpose [TS] Set or lift a lane's own rate limit: at most `max` of its jobs claimed per window of
-- `duration` ms, enforced by the lane claims (gclaim, gwclaim, gbclaim; lib gate) on top of the
-- queue's limiter, so workers in any number of processes share it. Setting a limit starts a fresh
-- window. The ring is untouched: a claim passes over a lane out of budget until its window reopens;
-- a lane in rotation wakes a consumer, as its fresh window (or no limit) may have room now.
-- @key grate      emq:{q}:grate [TS]: HASH group → "max:duration" (then ":window_end:used" once counted)
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @arg g          the group's branded id
-- @arg max        jobs per window (>= 1); "0" lifts the limit
-- @arg duration   the window in ms (>= 1) when max is set; else ""
-- @include core lanes
-- @returns 1
-- @error EMQKIND group id must be a branded id
local g = a_g
if not vid(g) then return redis.error_reply('EMQKIND group id must be a branded id') end
if a_max == '0' then
  redis.call('HDEL', k_grate, g)
else
  redis.call('HSET', k_grate, g, a_max .. ':' .. a_duration)
end
if redis.call('LPOS', k_ring, g) then wake({ wake = k_wake }) end
return 1
