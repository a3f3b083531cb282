-- @script detach_child
-- @purpose [TS] A child leaves its parent (BullMQ's removeChildDependency): the child's link fields
-- go, and its parent counts it down as if it had settled, without recording it in :processed; a
-- parent that waits on its children and had no other open child is released to pending. The child
-- itself runs on as a lone job. Only a parent in the child's own queue is reached here (one slot);
-- a child that has already settled for its parent (completed or dead) is left as it is.
-- @key row        emq:{q}:job:<cid>
-- @key parent     emq:{q}:job:<pid>
-- @key deps       emq:{q}:job:<pid>:dependencies
-- @key pending    emq:{q}:pending
-- @key waiting    emq:{q}:waiting-children
-- @key events     emq:{q}:events (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @arg cid        the child's id
-- @arg pid        the parent the caller read off the child's row
-- @include core events lanes fanin
-- @returns 1 detached (a released parent publishes `waiting` when meta `events` = all); 0 the child
-- has no parent, or has settled for it (nothing written)
-- @error EMQSTALE job gone
-- @error EMQSTATE parent missing
-- @error EMQSTATE parent changed
-- @error EMQSTATE parent in another queue
local f = redis.call('HMGET', k_row, 'state', 'parent', 'parent_queue')
if not f[1] then return redis.error_reply('EMQSTALE job gone') end
if not f[2] or f[1] == 'completed' or f[1] == 'dead' then return 0 end
if f[2] ~= a_pid then return redis.error_reply('EMQSTATE parent changed') end
if f[3] and f[3] ~= '' then return redis.error_reply('EMQSTATE parent in another queue') end
if redis.call('EXISTS', k_parent) == 0 then return redis.error_reply('EMQSTATE parent missing') end
redis.call('HDEL', k_row, 'parent', 'parent_queue', 'parent_policy')
count_down(k_deps, k_parent, k_pending, k_waiting, a_pid, 1)
ev_open(k_events, k_journal, k_meta)
for _, p in ipairs(FANIN_RELEASED) do ev_chatty('waiting', p) end
return 1
