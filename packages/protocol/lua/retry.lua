-- @script retry
-- @purpose Settle a held job as failed: fence on the token, keep the error, then reschedule it or,
-- at the attempt cap, dead-letter it and run its flow failure arm (queue.md §4.1, §11.6). [TS] The
-- row's :lock marker is deleted in the same step (KEYS[13]); the flow keys follow at 19+, after the
-- [TS] retention and event keys. [TS] A dead row gets `finished_at`, enters emq:{q}:dead:at at that
-- time, releases the idempotency key it names, and the dead set is trimmed to the queue's
-- failed-retention policy (lib retain). A parent failed by its child under `fp` ends the same way,
-- its own idempotency key released too; [TS] its `last_error` names the child ("child <id> failed"),
-- and with `publish` it publishes `failed` (outcome dead) after the child's.
-- @key active     emq:{q}:active
-- @key pending    emq:{q}:pending
-- @key schedule   emq:{q}:schedule
-- @key dead       emq:{q}:dead
-- @key row        emq:{q}:job:<id>
-- @key failed     emq:{q}:metrics:failed
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key laneroot   emq:{q}:g:
-- @key jobroot    emq:{q}:job: [TS]: the row's worker-presence marker :lock goes with the settlement,
-- so the lock plane writes nothing after it
-- @key meta       emq:{q}:meta [TS]: the retention policy and the queue's event settings (lib retain, lib events)
-- @key deadat     emq:{q}:dead:at [TS]: dead ids by finish time
-- @key deroot     emq:{q}:de: [TS]: the root of the idempotency key the row names
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @keys flow      mode sq:*: parent :failed, :unsuccessful, :dependencies, parent row, [TS]
-- emq:{q}:waiting-children (optional: a parent leaving `awaiting_children` leaves that index); mode
-- xq:*: emq:{q}:flow:outbox
-- @tail sq      parent_failed parent_unsuccessful parent_deps parent_row waiting_children
-- @tail xq      flow_outbox
-- @arg id         the job's id
-- @arg token      the attempts value the claim returned
-- @arg delay_ms   how long to wait before the next attempt, from server now
-- @arg max_attempts  the cap: at attempts >= cap the job dies
-- @arg error      the failure text, kept as last_error
-- @arg mode       "", "sq:fp", "sq:id", "xq:fp" or "xq:id"; [TS] "sq:cp" / "xq:cp" (continue parent: as
-- id, and a parent still waiting runs now, its other children open; lib fanin continue_parent)
-- @arg parent_id  the parent's id, or ""
-- @arg parent_queue  the parent's queue, or ""
-- @args publish   optional "1" [TS]: publish `failed` with its `outcome` (scheduled or dead) in the same step
-- @include core history events lanes fanin retain
-- @returns "scheduled" or "dead"
-- @error EMQSTALE job gone
-- @error EMQSTALE retry token mismatch
local id = a_id
local row = k_row
local head = redis.call('HMGET', row, 'attempts', 'state')
local attempts = head[1]
if not attempts or head[2] == 'completed' then return redis.error_reply('EMQSTALE job gone') end
if attempts ~= a_token then return redis.error_reply('EMQSTALE retry token mismatch') end
-- A resend after a dropped reply finds the job already dead under the same token: report the
-- verdict again without counting the failure twice or firing the flow arm again.
if head[2] == 'dead' and redis.call('ZSCORE', k_dead, id) then return 'dead' end

leave_active(k_active, k_pending, lane_keys(k_gactive, k_glimit, k_ring, k_wake, k_paused), k_laneroot, id, redis.call('HGET', row, 'group'))
redis.call('ZREM', k_schedule, id)
redis.call('ZREM', k_dead, id)
redis.call('DEL', jkey(k_jobroot, id, ':lock'))
redis.call('HSET', row, 'last_error', a_error)
-- [TS] The claim's ticket (lib lease) goes with the lease: the row leaves active.
redis.call('HDEL', row, 'claim_ticket')
hist_settled(k_meta, k_jobroot, id, attempts, tonumber(attempts) < tonumber(a_max_attempts) and 'retried' or 'failed', a_error, k_failed)

if tonumber(attempts) < tonumber(a_max_attempts) then
  redis.call('HSET', row, 'state', 'scheduled')
  redis.call('ZADD', k_schedule, now_ms() + tonumber(a_delay_ms), id)
  if a_publish == '1' then
    ev_open(k_events, k_journal, k_meta)
    ev_emit('failed', id, { outcome = 'scheduled' })
  end
  return 'scheduled'
end

redis.call('HSET', row, 'state', 'dead')
redis.call('ZADD', k_dead, 0, id)
redis.call('HINCRBY', k_failed, 'count', 1)
if a_publish == '1' then
  ev_open(k_events, k_journal, k_meta)
  ev_emit('failed', id, { outcome = 'dead' })
end

local mode = a_mode
local pid = a_parent_id
local now = now_ms()
local ended = { jobroot = k_jobroot, dead = k_dead, deadat = k_deadat, deroot = k_deroot, pending = k_pending, schedule = k_schedule, wake = k_wake }
local policy = nil
if mode == 'sq:fp' then
  if redis.call('EXISTS', k_parent_row) == 1 then
    redis.call('HSET', k_parent_failed, id, a_error)
    fail_parent_row(k_parent_row, k_pending, k_dead, k_waiting_children, pid, id)
    policy = policy or keep_policy(k_meta)
    finish_dead(ended, pid, k_parent_row, now, policy)
  end
elseif mode == 'sq:id' or mode == 'sq:cp' then
  -- [TS] The row guard: a `cp` sibling may have let the parent run and end before this child died.
  if redis.call('EXISTS', k_parent_row) == 1 and redis.call('HSETNX', k_parent_unsuccessful, id, a_error) == 1 then
    count_down(k_parent_deps, k_parent_row, k_pending, k_waiting_children, pid, 1, k_wake)
    if mode == 'sq:cp' then continue_parent(k_parent_row, k_pending, k_waiting_children, pid, k_wake) end
  end
elseif mode == 'xq:fp' or mode == 'xq:id' or mode == 'xq:cp' then
  local policy = string.sub(mode, 4)
  redis.call('RPUSH', k_flow_outbox, '\0fail\0' .. a_parent_queue .. '\0' .. pid .. '\0' .. id .. '\0' .. policy .. '\0' .. a_error)
end
finish_dead(ended, id, row, now, policy or keep_policy(k_meta))
ev_open(k_events, k_journal, k_meta)
for _, p in ipairs(FANIN_RELEASED) do ev_chatty('waiting', p) end
if a_publish == '1' then
  for _, p in ipairs(FANIN_FAILED) do ev_emit('failed', p, { outcome = 'dead' }) end
end
return 'dead'
