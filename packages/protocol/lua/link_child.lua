-- @script link_child
-- @purpose [TS] A flow node names a job that already exists in its parent's queue (BullMQ's flow
-- whose child carries the `jobId` of a job added before): that job becomes the parent's child
-- instead of a new one. The parent, held just before with this child in its count, keeps counting
-- it while the job is open; a completed job is recorded at once with its result (its own id when
-- it gave none) and counted down, releasing a parent that waits on nothing more. A dead job stays
-- counted, as BullMQ's parent waits for a failed child to be retried. One slot: child and parent
-- share the queue.
-- @key row        emq:{q}:job:<cid>
-- @key parent     emq:{q}:job:<pid>
-- @key deps       emq:{q}:job:<pid>:dependencies
-- @key processed  emq:{q}:job:<pid>:processed
-- @key pending    emq:{q}:pending
-- @key waiting    emq:{q}:waiting-children
-- @key events     emq:{q}:events (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @key wake       emq:{q}:wake [TS]: a released parent wakes one parked consumer
-- @arg cid        the existing job's id
-- @arg pid        the parent's id
-- @arg policy     "fp" | "id" | "cp" toward the parent
-- @include core events lanes fanin
-- @returns 1 linked, counted open; 2 linked and counted down (it had completed); 0 the job is gone,
-- or already reports to another parent, or the parent is missing (nothing written)
local f = redis.call('HMGET', k_row, 'state', 'parent', 'result')
if not f[1] or redis.call('EXISTS', k_parent) == 0 then return 0 end
if f[2] and f[2] ~= a_pid then return 0 end
redis.call('HSET', k_row, 'parent', a_pid, 'parent_policy', a_policy)
redis.call('HDEL', k_row, 'parent_queue')
if f[1] ~= 'completed' then return 1 end
local recorded = f[3]
if not recorded or recorded == '' then recorded = a_cid end
if redis.call('HSETNX', k_processed, a_cid, recorded) == 0 then return 2 end
count_down(k_deps, k_parent, k_pending, k_waiting, a_pid, 1, k_wake)
ev_open(k_events, k_journal, k_meta)
for _, p in ipairs(FANIN_RELEASED) do ev_chatty('waiting', p) end
return 2
