-- @script greassign
-- @purpose Move one pending job to another lane (queue.md §5.6). The source lane comes from the row,
-- never from the caller; a job in flight is not moved, so counters stay with the lane that claimed it.
-- @key row        emq:{q}:job:<id>
-- @key dst        emq:{q}:g:<dst>:pending
-- @key ring       emq:{q}:ring
-- @key paused     emq:{q}:paused
-- @key glimit     emq:{q}:glimit
-- @key gactive    emq:{q}:gactive
-- @key wake       emq:{q}:wake
-- @key laneroot   emq:{q}:g:
-- @arg id         the job's id
-- @arg dst        the destination group's branded id
-- @args lane      [TS] optional: the name the caller gave the destination lane, written into the
-- row's `lane` field; without it the row's `lane` is removed (it named the source)
-- @include core lanes
-- @returns 1 moved; 0 no-op (dst is the source); -1 no row or no group; -2 not pending in its lane
-- @error EMQKIND group id must be a branded id
local id, dst = a_id, a_dst
if not vid(dst) then return redis.error_reply('EMQKIND group id must be a branded id') end
local src = redis.call('HGET', k_row, 'group')
if not src or not vid(src) then return -1 end
if src == dst then return 0 end
local from = gkey(k_laneroot, src)
if redis.call('ZREM', from, id) == 0 then return -2 end
redis.call('ZADD', k_dst, 0, id)
redis.call('HSET', k_row, 'group', dst)
if a_lane then redis.call('HSET', k_row, 'lane', a_lane) else redis.call('HDEL', k_row, 'lane') end
local lb = { ring = k_ring, paused = k_paused, glimit = k_glimit, gactive = k_gactive, wake = k_wake }
rering(lb, k_dst, dst)
if redis.call('ZCARD', from) == 0 then redis.call('LREM', lb.ring, 0, src) end
return 1
