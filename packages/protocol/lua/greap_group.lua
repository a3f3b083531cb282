-- @script greap_group
-- @purpose Recover the lapsed leases of one group only: each goes back to its lane with attempts kept,
-- giving its slot back (queue.md §5.6). Lapsed jobs of other groups are left to the queue-wide reaper.
-- @key active     emq:{q}:active
-- @key lane       emq:{q}:g:<g>:pending
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key jobroot    emq:{q}:job:
-- @arg g          the group's branded id (the lane's own)
-- @arg limit      most leases to recover (default 100)
-- @include core lanes
-- @returns the number of jobs recovered
local g = a_g
-- No row can carry a group that fails vid, so such a g owns nothing to recover.
if not vid(g) then return 0 end
local limit = tonumber(a_limit) or 100
local lb = lane_keys(k_gactive, k_glimit, k_ring, k_wake, k_paused)
local recovered = 0
-- Scan every lapsed lease, not the first `limit`: other groups' lapses must not hide this group's.
for _, id in ipairs(redis.call('ZRANGEBYSCORE', k_active, '-inf', now_ms())) do
  if recovered >= limit then break end
  if vid(id) then
    local row = jkey(k_jobroot, id)
    if redis.call('HGET', row, 'group') == g then
      redis.call('ZREM', k_active, id)
      local added = redis.call('ZADD', k_lane, 0, id)
      redis.call('HSET', row, 'state', 'pending')
      release(lb, k_lane, g, added)
      recovered = recovered + 1
    end
  end
end
return recovered
