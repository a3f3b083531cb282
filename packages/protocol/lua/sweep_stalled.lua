-- @script sweep_stalled
-- @purpose Count lapsed leases per job: below the threshold the job is recovered like a reap; at it,
-- the job is dead-lettered with last_error "stalled" (queue.md §6.2). [TS] A flow child that dies
-- so runs its failure arm as a retry at the cap does (queue.md §11.6): a parent in this queue is
-- failed (fail-parent) or released from waiting on it (ignore); for a parent in another queue a
-- fail entry goes into this queue's flow outbox when that key is declared. A parent leaving
-- `awaiting_children` leaves the index of waiting parents. [TS] A job dead so, and a parent it
-- fails, is stamped, indexed, has its idempotency key released and is trimmed as retry's dead arm
-- does (lib retain).
-- @key active     emq:{q}:active
-- @key pending    emq:{q}:pending
-- @key dead       emq:{q}:dead
-- @key failed     emq:{q}:metrics:failed
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key jobroot    emq:{q}:job:
-- @key laneroot   emq:{q}:g:
-- @key waiting    emq:{q}:waiting-children [TS]
-- @key meta       emq:{q}:meta [TS]: the retention policy and the queue's event settings (lib retain, lib events)
-- @key deadat     emq:{q}:dead:at [TS]: dead ids by finish time
-- @key deroot     emq:{q}:de: [TS]: the root of the idempotency keys rows name
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @keys outbox    optional emq:{q}:flow:outbox [TS]: when declared, a dead child of a parent in another
-- queue leaves a fail entry for it
-- @arg max_stalled  lapses that kill a job (default 1)
-- @arg limit      most leases to examine (default 100)
-- @include core history events lanes fanin retain
-- @returns {recovered_ids, dead_ids}; [TS] each id is published as `stalled` with its `outcome`
-- (recovered or dead) in the same step, and each dead one then as `failed` ({outcome: dead,
-- error: stalled} [TS]); [TS] a parent in this queue a dead child killed publishes `failed`
-- ({outcome: dead}), its `last_error` naming the child
local lb = lane_keys(k_gactive, k_glimit, k_ring, k_wake, k_paused)
local now = now_ms()
local expired = redis.call('ZRANGEBYSCORE', k_active, '-inf', now, 'LIMIT', 0, tonumber(a_limit))
local ended, keep = { jobroot = k_jobroot, dead = k_dead, deadat = k_deadat, deroot = k_deroot, pending = k_pending, wake = k_wake }, nil
local max_stalled = tonumber(a_max_stalled)
local recovered, dead, flat = {}, {}, 0

-- fail_parent(id): the flow failure arm of a child that just died stalled.
local function fail_parent(id)
  local link = redis.call('HMGET', jkey(k_jobroot, id), 'parent', 'parent_queue', 'parent_policy')
  local pid, pq, policy = link[1], link[2], link[3]
  if not pid or not vid(pid) then return end
  if policy ~= 'id' and policy ~= 'cp' then policy = 'fp' end
  if pq and pq ~= '' then
    if k_outbox then
      redis.call('RPUSH', k_outbox, '\0fail\0' .. pq .. '\0' .. pid .. '\0' .. id .. '\0' .. policy .. '\0stalled')
    end
    return
  end
  local prow = jkey(k_jobroot, pid)
  if policy == 'fp' then
    if redis.call('EXISTS', prow) == 1 then
      redis.call('HSET', jkey(k_jobroot, pid, ':failed'), id, 'stalled')
      fail_parent_row(prow, k_pending, k_dead, k_waiting, pid, id)
      keep = keep or keep_policy(k_meta)
      finish_dead(ended, pid, prow, now, keep)
    end
  elseif redis.call('EXISTS', prow) == 1 and redis.call('HSETNX', jkey(k_jobroot, pid, ':unsuccessful'), id, 'stalled') == 1 then
    local waiting = redis.call('HGET', prow, 'state') == 'awaiting_children'
    if count_down(jkey(k_jobroot, pid, ':dependencies'), prow, k_pending, k_waiting, pid, 1) <= 0 and waiting then
      flat = flat + 1
    elseif policy == 'cp' and waiting then
      -- [TS] Continue parent: it runs now, its other children still open.
      continue_parent(prow, k_pending, k_waiting, pid)
      flat = flat + 1
    end
  end
end
for _, id in ipairs(expired) do
  redis.call('ZREM', k_active, id)
  if vid(id) then
    local row = jkey(k_jobroot, id)
    if redis.call('EXISTS', row) == 1 then
      local stalled = redis.call('HINCRBY', row, 'stalled', 1)
      hist_settled(k_meta, k_jobroot, id, nil, 'stalled', 'lease lapsed', stalled >= max_stalled and k_failed or nil)
      local g = redis.call('HGET', row, 'group')
      local lane = nil
      if g and vid(g) then
        lane = gkey(k_laneroot, g)
        local act = redis.call('HINCRBY', lb.gactive, g, -1)
        if act <= 0 then redis.call('HDEL', lb.gactive, g) end
      end
      if stalled >= max_stalled then
        redis.call('HSET', row, 'state', 'dead', 'last_error', 'stalled')
        redis.call('ZADD', k_dead, 0, id)
        redis.call('HINCRBY', k_failed, 'count', 1)
        if lane then rering(lb, lane, g) end
        fail_parent(id)
        keep = keep or keep_policy(k_meta)
        finish_dead(ended, id, row, now, keep)
        dead[#dead + 1] = id
      else
        if lane then
          redis.call('ZADD', lane, 0, id)
          rering(lb, lane, g)
        else
          redis.call('ZADD', k_pending, flat_score(row), id)
          flat = flat + 1
        end
        redis.call('HSET', row, 'state', 'pending')
        recovered[#recovered + 1] = id
      end
    end
  end
end
if flat > 0 then wake(lb) end
ev_open(k_events, k_journal, k_meta)
for _, id in ipairs(recovered) do ev_emit('stalled', id, { outcome = 'recovered' }) end
-- [TS] A death by stalling is a failure: `failed` (outcome dead, error "stalled") follows each
-- job's `stalled`, so a listener for failures hears it as it hears a retry's dead arm.
for _, id in ipairs(dead) do
  ev_emit('stalled', id, { outcome = 'dead' })
  ev_emit('failed', id, { outcome = 'dead', error = 'stalled' })
end
for _, p in ipairs(FANIN_RELEASED) do ev_chatty('waiting', p) end
for _, p in ipairs(FANIN_FAILED) do ev_emit('failed', p, { outcome = 'dead' }) end
return { recovered, dead }
