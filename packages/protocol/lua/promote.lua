-- @script promote
-- @purpose Release due scheduled jobs: each goes to its lane (re-ringing it) or to flat pending
-- (queue.md §8.2). Rows that vanished are dropped, never recreated.
-- @key schedule   emq:{q}:schedule
-- @key pending    emq:{q}:pending
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key jobroot    emq:{q}:job:
-- @key laneroot   emq:{q}:g:
-- @arg limit      most ids to move
-- @include core lanes
-- @returns the number of jobs moved
local lb = lb_at(3)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now_ms(), 'LIMIT', 0, tonumber(ARGV[1]))
local moved, flat = 0, 0
for _, id in ipairs(due) do
  redis.call('ZREM', KEYS[1], id)
  if vid(id) then
    local row = jkey(KEYS[8], id)
    if redis.call('EXISTS', row) == 1 then
      if requeue(KEYS[2], lb, KEYS[9], id, redis.call('HGET', row, 'group'), false) then flat = flat + 1 end
      redis.call('HSET', row, 'state', 'pending')
      moved = moved + 1
    end
  end
end
if flat > 0 then wake(lb) end
return moved
