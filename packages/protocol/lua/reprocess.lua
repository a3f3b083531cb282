-- @script reprocess
-- @purpose Bring a dead job back to pending (its lane when grouped), clearing last_error (and [TS]
-- finished_at) and keeping attempts so the next claim mints the next token (queue.md §4.3).
-- @key row        emq:{q}:job:<id>
-- @key dead       emq:{q}:dead
-- @key pending    emq:{q}:pending
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key laneroot   emq:{q}:g:
-- @key deadat     emq:{q}:dead:at [TS]: the job leaves the finish-time index with the dead set
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @arg id         the job's id
-- @include core events lanes
-- @returns 1 moved; -1 gone (no row); [TS] publishes `waiting` when meta `events` = all
-- @error EMQSTATE not dead
local id = ARGV[1]
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('ZREM', KEYS[2], id) == 0 then return redis.error_reply('EMQSTATE not dead') end
redis.call('ZREM', KEYS[10], id)
redis.call('HDEL', KEYS[1], 'last_error', 'finished_at')
redis.call('HSET', KEYS[1], 'state', 'pending')
local lb = lb_at(4)
local g = redis.call('HGET', KEYS[1], 'group')
if g and vid(g) then
  local lane = gkey(KEYS[9], g)
  redis.call('ZADD', lane, 0, id)
  rering(lb, lane, g)
else
  redis.call('ZADD', KEYS[3], flat_score(KEYS[1]), id)
  wake(lb)
end
ev_open(KEYS[11], KEYS[13], KEYS[12])
ev_chatty('waiting', id)
return 1
