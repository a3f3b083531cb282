-- @script reap
-- @purpose Crash recovery: every lease past its deadline goes back to its lane or to pending with
-- attempts kept, so the next claim mints the next token and the old holder is fenced out
-- (queue.md §6.1).
-- @key active     emq:{q}:active
-- @key pending    emq:{q}:pending
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key jobroot    emq:{q}:job:
-- @key laneroot   emq:{q}:g:
-- @arg limit      most leases to recover (default 100)
-- @include core lanes
-- @returns the number of jobs recovered
local lb = lb_at(3)
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now_ms(), 'LIMIT', 0, tonumber(ARGV[1]))
local recovered, flat = 0, 0
for _, id in ipairs(expired) do
  redis.call('ZREM', KEYS[1], id)
  if vid(id) then
    local row = jkey(KEYS[8], id)
    if redis.call('EXISTS', row) == 1 then
      if requeue(KEYS[2], lb, KEYS[9], id, redis.call('HGET', row, 'group'), true) then flat = flat + 1 end
      redis.call('HSET', row, 'state', 'pending')
      recovered = recovered + 1
    end
  end
end
if flat > 0 then wake(lb) end
return recovered
