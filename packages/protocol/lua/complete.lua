-- @script complete
-- @purpose Settle a held job as done: fence on the token, leave every set, fan into a flow parent,
-- delete the row and count the completion (queue.md §3.3, §11.4, §11.5). [TS] The row's :lock and
-- :logs go with it (nothing can read them once the row is gone), and so do a flow parent's
-- :processed and :dependencies; the `completed` event can be published in the same step (with the
-- result when there is one), so a worker's success path is one round trip. [TS] Retention (lib retain): when the
-- queue meta keeps completed jobs, the row stays as `state = completed` with `finished_at` and
-- `result`, indexed in emq:{q}:completed and trimmed to the policy in bulk (lib retain); the idempotency key the row names
-- is released either way; [TS] with none kept, the verdict goes to emq:{q}:outcomes (lib retain)
-- for a late waiter. A row already completed answers as a gone one, so a resend cannot count
-- twice.
-- @key active     emq:{q}:active
-- @key pending    emq:{q}:pending
-- @key schedule   emq:{q}:schedule
-- @key dead       emq:{q}:dead
-- @key row        emq:{q}:job:<id>
-- @key completed  emq:{q}:metrics:completed
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key laneroot   emq:{q}:g:
-- @key jobroot    emq:{q}:job: [TS]
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built)
-- @key meta       emq:{q}:meta [TS]: the retention policy and the queue's event settings (lib retain, lib events)
-- @key retained   emq:{q}:completed [TS]: retained completed ids by finish time
-- @key deroot     emq:{q}:de: [TS]: the root of the idempotency key the row names
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set (lib events)
-- @key outcomes   emq:{q}:outcomes [TS]: recent completions (job, result) when no completed row is kept (lib retain)
-- @keys flow      mode sq: parent :dependencies, parent :processed, parent row, [TS] emq:{q}:waiting-children
-- (optional: a released parent leaves that index); mode xq: emq:{q}:flow:outbox
-- @tail sq      parent_deps parent_processed parent_row waiting_children
-- @tail xq      flow_outbox
-- @arg id         the job's id
-- @arg token      the attempts value the claim returned
-- @arg mode       "" (not a flow child), "sq" (parent in this queue) or "xq" (parent elsewhere)
-- @arg parent_id  the parent's id, or ""
-- @arg result     the handler's result text, "" for none [TS]: recorded for the parent (the child's
-- own id when ""), kept on a retained row and carried by the event
-- @arg parent_queue  the parent's queue, or ""
-- @args publish   optional "1" [TS]: publish {"event":"completed","job":id} on the events channel
-- (and the journal, lib events), with "result" [TS] when there is one (without one, the event is the
-- spec's, queue.md §12)
-- @include core history events lanes fanin retain
-- @returns 1
-- @error EMQSTALE job gone
-- @error EMQSTALE complete token mismatch
local id = a_id
local row = k_row
local f = redis.call('HMGET', row, 'attempts', 'group', 'state', 'dedup', 'dedup_keep', 'flow')
local attempts, g, state = f[1], f[2], f[3]
if not attempts or state == 'completed' then return redis.error_reply('EMQSTALE job gone') end
if attempts ~= a_token then return redis.error_reply('EMQSTALE complete token mismatch') end

leave_active(k_active, k_pending, lane_keys(k_gactive, k_glimit, k_ring, k_wake, k_paused), k_laneroot, id, g)
-- A token that still matches after a retry or delay moved the job must not leave a member behind;
-- the row's state names the set it sits in (I2), so the common path pays for neither.
if state == 'scheduled' then redis.call('ZREM', k_schedule, id) end
if state == 'dead' then redis.call('ZREM', k_dead, id) end

local mode = a_mode
local result = a_result
local recorded = result
if recorded == '' then recorded = id end
if mode == 'sq' then
  -- [TS] The row guard: a continue-parent sibling may have let the parent run and end already.
  if redis.call('EXISTS', k_parent_row) == 1 and redis.call('HSETNX', k_parent_processed, id, recorded) == 1 then
    count_down(k_parent_deps, k_parent_row, k_pending, k_waiting_children, a_parent_id, 1, k_wake)
  end
elseif mode == 'xq' then
  redis.call('RPUSH', k_flow_outbox, a_parent_queue .. '\0' .. a_parent_id .. '\0' .. id .. '\0' .. recorded)
end

-- One read of meta serves the retention policy and the event settings.
local policy, m = keep_read(k_meta, 'events', 'journal', 'history', 'minutes')
hist_seed(m[7], m[8])
local ended = { jobroot = k_jobroot, completed = k_retained, deroot = k_deroot, outcomes = k_outcomes, pending = k_pending, schedule = k_schedule, wake = k_wake }
finish_completed(ended, id, row, result, f[4], f[5], f[6], policy, attempts)
retain_flush(ended, policy)
redis.call('HINCRBY', k_completed, 'count', 1)
hist_completed(k_jobroot, id, attempts, policy)
per_minute(k_completed, 1)
ev_open(k_events, k_journal, k_meta)
ev_seed(m[5], m[6])
if a_publish == '1' then ev_completed(id, result) end
for _, p in ipairs(FANIN_RELEASED) do ev_chatty('waiting', p) end
return 1
