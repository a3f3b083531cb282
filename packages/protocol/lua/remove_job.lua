-- @script remove_job
-- @purpose Delete a job wherever it sits, with its sub-keys, unless a worker holds its lock; release
-- its idempotency key when it still names this job (queue.md §8.5). [TS] The key the row itself
-- names (its `dedup` field) is released too, so the caller need not pass it; a retained finished job
-- is removed like any other. [TS] Flows stay whole: a parent
-- still waiting on children is refused (remove the children first, or drain) unless `held` says
-- the caller removes the tree (its children then no longer count for a parent that is gone, and
-- run as lone jobs if the caller leaves them), and removing a child
-- whose parent in this queue waits on it counts the parent down as if the child had finished, so the
-- parent runs once its other children are done instead of waiting forever (at its priority score,
-- leaving the index of waiting parents).
-- @key pending    emq:{q}:pending
-- @key active     emq:{q}:active
-- @key schedule   emq:{q}:schedule
-- @key dead       emq:{q}:dead
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key jobroot    emq:{q}:job:
-- @key laneroot   emq:{q}:g:
-- @key waiting    emq:{q}:waiting-children [TS]
-- @key deroot     emq:{q}:de: [TS]: the root of the idempotency key the row names
-- @key retained   emq:{q}:completed [TS]: a retained completed job leaves its index
-- @key deadat     emq:{q}:dead:at [TS]: a dead job leaves its finish-time index
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @keys dedup     optional emq:{q}:de:<did>
-- @arg id         the job's id
-- @arg did        the idempotency key it was admitted under, or ""
-- @arg held       [TS] "1": a parent still waiting on children may be removed too (it leaves the
-- index of waiting parents); "" refuses it
-- @include core events lanes fanin retain
-- @returns 1 removed, publishing `removed` [TS] with `state`, the state the job was removed from
-- [TS] (pending, scheduled, dead, completed, awaiting_children); -1 gone
-- @error EMQLOCK job is locked
-- @error EMQSTATE parent awaiting children
local id = a_id
if not vid(id) then return -1 end
local row = jkey(k_jobroot, id)
if redis.call('EXISTS', row) == 0 then return -1 end
if redis.call('EXISTS', jkey(k_jobroot, id, ':lock')) == 1 or redis.call('HEXISTS', row, 'lock') == 1 then
  return redis.error_reply('EMQLOCK job is locked')
end
local link = redis.call('HMGET', row, 'state', 'parent', 'parent_queue')
if link[1] == 'awaiting_children' then
  if a_held ~= '1' then return redis.error_reply('EMQSTATE parent awaiting children') end
  redis.call('SREM', k_waiting, id)
end
local pid, pq = link[2], link[3]
if pid and vid(pid) and (not pq or pq == '') and link[1] ~= 'dead' then
  local prow = jkey(k_jobroot, pid)
  if redis.call('HGET', prow, 'state') == 'awaiting_children' then
    count_down(jkey(k_jobroot, pid, ':dependencies'), prow, k_pending, k_waiting, pid, 1, k_wake)
  end
end
local was_active = redis.call('ZREM', k_active, id) == 1
redis.call('ZREM', k_pending, id)
redis.call('ZREM', k_schedule, id)
redis.call('ZREM', k_dead, id)
local g = redis.call('HGET', row, 'group')
if g and vid(g) then
  local lb = lane_keys(k_gactive, k_glimit, k_ring, k_wake, k_paused)
  local lane = gkey(k_laneroot, g)
  redis.call('ZREM', lane, id)
  if was_active then
    release(lb, lane, g)
  elseif redis.call('ZCARD', lane) == 0 then
    redis.call('LREM', lb.ring, 0, g)
  end
end
redis.call('ZREM', k_retained, id)
redis.call('ZREM', k_deadat, id)
if k_dedup and a_did ~= '' and redis.call('GET', k_dedup) == id then redis.call('DEL', k_dedup) end
wipe_released(k_jobroot, k_deroot, id)
ev_open(k_events, k_journal, k_meta)
ev_emit('removed', id, { state = link[1] or '' })
for _, p in ipairs(FANIN_RELEASED) do ev_chatty('waiting', p) end
return 1
