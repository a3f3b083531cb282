-- @script sweep_stalled
-- @purpose Count lapsed leases per job: below the threshold the job is recovered like a reap; at it,
-- the job is dead-lettered with last_error "stalled" (queue.md §6.2).
-- @key active     emq:{q}:active
-- @key pending    emq:{q}:pending
-- @key dead       emq:{q}:dead
-- @key failed     emq:{q}:metrics:failed
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key jobroot    emq:{q}:job:
-- @key laneroot   emq:{q}:g:
-- @arg max_stalled  lapses that kill a job (default 1)
-- @arg limit      most leases to examine (default 100)
-- @include core lanes
-- @returns {recovered_ids, dead_ids}
local lb = lb_at(5)
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now_ms(), 'LIMIT', 0, tonumber(ARGV[2]))
local max_stalled = tonumber(ARGV[1])
local recovered, dead, flat = {}, {}, 0
for _, id in ipairs(expired) do
  redis.call('ZREM', KEYS[1], id)
  if vid(id) then
    local row = jkey(KEYS[10], id)
    if redis.call('EXISTS', row) == 1 then
      local stalled = redis.call('HINCRBY', row, 'stalled', 1)
      local g = redis.call('HGET', row, 'group')
      local lane = nil
      if g and vid(g) then
        lane = gkey(KEYS[11], g)
        local act = redis.call('HINCRBY', lb.gactive, g, -1)
        if act <= 0 then redis.call('HDEL', lb.gactive, g) end
      end
      if stalled >= max_stalled then
        redis.call('HSET', row, 'state', 'dead', 'last_error', 'stalled')
        redis.call('ZADD', KEYS[3], 0, id)
        redis.call('HINCRBY', KEYS[4], 'count', 1)
        if lane then rering(lb, lane, g) end
        dead[#dead + 1] = id
      else
        if lane then
          redis.call('ZADD', lane, 0, id)
          rering(lb, lane, g)
        else
          redis.call('ZADD', KEYS[2], flat_score(row), id)
          flat = flat + 1
        end
        redis.call('HSET', row, 'state', 'pending')
        recovered[#recovered + 1] = id
      end
    end
  end
end
if flat > 0 then wake(lb) end
return { recovered, dead }
