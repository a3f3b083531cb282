-- @script promote_next
-- @purpose [TS] Promote as `promote` does (queue.md §8.2), then say how long until the earliest job
-- left in the schedule falls due, so a worker can wake at that moment instead of at its next
-- maintenance tick. The wait is measured on the server clock, so host clock skew does not matter.
-- @key schedule   emq:{q}:schedule
-- @key pending    emq:{q}:pending
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key jobroot    emq:{q}:job:
-- @key laneroot   emq:{q}:g:
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @arg limit      most ids to move
-- @include core events lanes
-- @returns {moved, wait}: the number of jobs moved, and ms until the earliest remaining scheduled
-- job is due (0 when it is due already), or -1 when the schedule is empty. [TS] Each moved job
-- publishes `waiting` when meta `events` = all
local releasing = false -- a scheduled job held no lease, so no lane slot goes back
ev_open(k_events, k_journal, k_meta)
local waiting = nil
if ev_chatty_on() then waiting = function(id) ev_emit('waiting', id) end end
local moved = requeue_due(k_schedule, k_pending, lane_keys(k_gactive, k_glimit, k_ring, k_wake, k_paused), k_jobroot, k_laneroot, tonumber(a_limit), releasing, waiting)
local head = redis.call('ZRANGE', k_schedule, 0, 0, 'WITHSCORES')
if #head == 0 then return { moved, -1 } end
local wait = math.floor(tonumber(head[2]) - now_ms())
if wait < 0 then wait = 0 end
return { moved, wait }
