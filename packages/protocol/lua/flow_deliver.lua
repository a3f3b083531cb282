-- @script flow_deliver
-- @purpose Apply one child's completion to its parent, on the parent's slot (queue.md §11.5): record
-- the result once, count the child down once, and release the parent at zero. Redelivery is a no-op.
-- [TS] A released parent keeps its priority score and leaves the index of waiting parents; it
-- publishes `waiting` when the parent queue's meta `events` = all.
-- @key deps       emq:{qp}:job:<pid>:dependencies
-- @key processed  emq:{qp}:job:<pid>:processed
-- @key parent     emq:{qp}:job:<pid>
-- @key pending    emq:{qp}:pending
-- @key waiting    emq:{qp}:waiting-children [TS]
-- @key events     emq:{qp}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{qp}:meta [TS]: the parent queue's event settings (lib events)
-- @key journal    emq:{qp}:journal [TS]: the events journal, written when meta `journal` is set
-- @key wake       emq:{qp}:wake [TS]: a released parent wakes one parked consumer of its queue
-- @arg cid        the child's id
-- @arg result     the child's result (its own id when it gave none)
-- @arg pid        the parent's id
-- @include core events lanes fanin
-- @returns 1 applied; 0 duplicate, or the parent row is gone (nothing written; the entry is spent)
if redis.call('EXISTS', k_parent) == 0 then return 0 end
if redis.call('HSETNX', k_processed, a_cid, a_result) == 0 then return 0 end
-- The state guard keeps a parent that a fail-parent sibling killed from being brought back.
count_down(k_deps, k_parent, k_pending, k_waiting, a_pid, 1, k_wake)
ev_open(k_events, k_journal, k_meta)
for _, p in ipairs(FANIN_RELEASED) do ev_chatty('waiting', p) end
return 1
