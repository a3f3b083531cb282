-- @script flow_fail_deliver
-- @purpose Apply one child's death to its parent, on the parent's slot (queue.md §11.6): fail-parent
-- kills the parent; ignore-dependency records the failure and counts the child down. Each child's
-- failure applies once; redelivery is a no-op. [TS] A parent leaving `awaiting_children` leaves the
-- index of waiting parents; a released one keeps its priority score and publishes `waiting` when the
-- parent queue's meta `events` = all. [TS] A killed parent ends as a dead-lettered job does (lib
-- retain): `finished_at` stamped, indexed in dead:at, its idempotency key released, the dead set
-- trimmed to the parent queue's policy; [TS] its `last_error` names the child ("child <cqueue>:<cid> failed")
-- and it publishes `failed` (outcome dead).
-- @key deps       emq:{qp}:job:<pid>:dependencies
-- @key failed     emq:{qp}:job:<pid>:failed
-- @key unsuccessful  emq:{qp}:job:<pid>:unsuccessful
-- @key parent     emq:{qp}:job:<pid>
-- @key pending    emq:{qp}:pending
-- @key dead       emq:{qp}:dead
-- @key waiting    emq:{qp}:waiting-children [TS]
-- @key events     emq:{qp}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{qp}:meta [TS]: the parent queue's event settings and retention policy (lib events,
-- lib retain)
-- @key journal    emq:{qp}:journal [TS]: the events journal, written when meta `journal` is set
-- @key jobroot    emq:{qp}:job: [TS]: rows of dead jobs the retention bound trims
-- @key deadat     emq:{qp}:dead:at [TS]: dead ids by finish time; a killed parent joins it
-- @key deroot     emq:{qp}:de: [TS]: the root of the idempotency key the parent's row names
-- @key wake       emq:{qp}:wake [TS]: a released parent wakes one parked consumer of its queue
-- @arg cid        the child's id
-- @arg error      the child's failure text
-- @arg policy     "fp" | "id" | [TS] "cp" (as id, and a parent still waiting runs now: lib fanin
-- continue_parent); anything else reads as fp
-- @arg pid        the parent's id
-- @arg cqueue     [TS] the child's queue, named in the parent's `last_error`; "" names the parent's own
-- @include core events lanes fanin retain
-- @returns 0 duplicate, or the parent row is gone (nothing written); 1 applied; 2 applied and the
-- parent moved to dead
local cid, pid = a_cid, a_pid
if redis.call('EXISTS', k_parent) == 0 then return 0 end
if a_policy == 'id' or a_policy == 'cp' then
  if redis.call('HSETNX', k_unsuccessful, cid, a_error) == 0 then return 0 end
  count_down(k_deps, k_parent, k_pending, k_waiting, pid, 1, k_wake)
  if a_policy == 'cp' then continue_parent(k_parent, k_pending, k_waiting, pid, k_wake) end
  ev_open(k_events, k_journal, k_meta)
  for _, p in ipairs(FANIN_RELEASED) do ev_chatty('waiting', p) end
  return 1
end
if redis.call('HSETNX', k_failed, cid, a_error) == 0 then return 0 end
fail_parent_row(k_parent, k_pending, k_dead, k_waiting, pid, cid, a_cqueue)
local ended = { jobroot = k_jobroot, dead = k_dead, deadat = k_deadat, deroot = k_deroot }
finish_dead(ended, pid, k_parent, now_ms(), keep_policy(k_meta))
ev_open(k_events, k_journal, k_meta)
ev_emit('failed', pid, { outcome = 'dead' })
return 2
