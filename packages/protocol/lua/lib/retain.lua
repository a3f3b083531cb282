-- @lib retain
-- @purpose [TS] What a job leaves behind when it ends: the retention of finished rows (queue meta's
-- `keep_*` fields) and the release of the idempotency key a row names. Needs core.
--
-- Policy, read from the queue meta so every process settles by the same rule:
--   keep_completed_count  completed rows kept (newest by finish time); absent = 0, keep none: the
--                         row is deleted as queue.md §3.3 says, at today's cost
--   keep_completed_age    ms a completed row is kept at most; absent = no age bound
--   keep_failed_count     dead rows kept; absent = RETAIN_FAILED_DEFAULT; -1 = no count bound
--   keep_failed_age       ms a dead row is kept at most; absent = no age bound
-- A finished row carries `finished_at` (server ms); a completed one `state = completed` and, when the
-- handler gave one, `result`. A row names its idempotency key in `dedup` and, for a business key,
-- how long the key outlives the job in `dedup_keep` (ms). A flow parent's row says `flow = parent`
-- (enqueue_flow, hold_parent): only such a row owns :processed, :dependencies, :failed and
-- :unsuccessful, so a plain job's deletion touches its row, :lock and :logs alone, as before.

local RETAIN_FAILED_DEFAULT = 10000
-- [TS] Recent completions kept in emq:{q}:outcomes (MAXLEN ~) when completed rows are not retained.
local OUTCOMES_KEPT = 1000
-- Most members one settlement trims: bounded work per call; each call adds one, so a set over its
-- bound after a policy change still converges.
local RETAIN_TRIM = 8

-- keep_of(ccount, cage, fcount, fage): the bounds from the four raw meta fields, for a script that
-- read them in a wider HMGET of its own (lib gate's, in complete_claim).
local function keep_of(ccount, cage, fcount, fage)
  return { ccount = tonumber(ccount) or 0, cage = tonumber(cage), fcount = tonumber(fcount) or RETAIN_FAILED_DEFAULT, fage = tonumber(fage) }
end

-- keep_read(meta, ...): the four bounds (count -1 means unbounded, age nil means no age bound), and
-- the raw HMGET reply, whose fields 5+ are the extra meta fields asked for, so a script that needs
-- other queue settings too (lib events) reads meta once.
local function keep_read(meta, ...)
  local f = redis.call('HMGET', meta, 'keep_completed_count', 'keep_completed_age', 'keep_failed_count', 'keep_failed_age', ...)
  return keep_of(f[1], f[2], f[3], f[4]), f
end

-- keep_policy(meta): the four bounds alone.
local function keep_policy(meta)
  local policy = keep_read(meta)
  return policy
end

-- release_key(DR, id, did, keep): frees the idempotency key `did` once its job `id` ended, when the
-- key still names that job. A business key (`keep` ms) stays that long from now; a key parked with a
-- TTL is left to expire by it; one without is deleted.
local function release_key(root, id, did, keep)
  if not vdid(did) then return end
  local key = dkey(root, did)
  if redis.call('GET', key) ~= id then return end
  if keep and tonumber(keep) then
    redis.call('PEXPIRE', key, tonumber(keep))
  elseif redis.call('PTTL', key) == -1 then
    redis.call('DEL', key)
  end
end

-- wipe_released(JR, DR, id): deletes a job that is removed rather than finished (remove, drain,
-- clean, obliterate) with its sub-keys, releasing the idempotency key its row names (a key with a
-- TTL is left to expire by it).
local function wipe_released(jr, dr, id)
  local did = redis.call('HGET', jkey(jr, id), 'dedup')
  if did then release_key(dr, id, did, nil) end
  wipe_job(jr, id)
end

-- trim_finished(set, JR, count, age, now, still): drops the oldest members of a retention index past
-- its bounds, at most RETAIN_TRIM; a member's row is wiped only when still(id) says it is still that
-- finished job (an index member can outlive its state: a reprocessed or removed job).
local function trim_finished(set, root, count, age, now, still)
  local ids = {}
  if age then
    ids = redis.call('ZRANGEBYSCORE', set, '-inf', now - age, 'LIMIT', 0, RETAIN_TRIM)
  end
  if #ids < RETAIN_TRIM and count >= 0 then
    local over = redis.call('ZCARD', set) - #ids - count
    if over > 0 then
      for _, id in ipairs(redis.call('ZRANGE', set, #ids, #ids + math.min(over, RETAIN_TRIM - #ids) - 1)) do ids[#ids + 1] = id end
    end
  end
  for _, id in ipairs(ids) do
    redis.call('ZREM', set, id)
    if vid(id) and still(id) then wipe_job(root, id) end
  end
end

-- finish_completed(k, id, row, result, dedup, keep, parent, policy): the row's end on completion. k
-- names jobroot, completed (the index), deroot and outcomes (the recent completions); `parent` is the row's `flow` field. Keeping none
-- deletes the row and its sub-keys (a plain job's three, a flow parent's seven) and reads no clock.
local function finish_completed(k, id, row, result, dedup, keep, parent, policy)
  if dedup then release_key(k.deroot, id, dedup, keep) end
  if policy.ccount == 0 then
    -- [TS] The row goes, so its verdict is kept a little while in a short stream: a waiter that
    -- comes after a fast job finished reads it there. One command per completion, bounded memory.
    if result and result ~= '' then
      redis.call('XADD', k.outcomes, 'MAXLEN', '~', OUTCOMES_KEPT, '*', 'job', id, 'result', result)
    else
      redis.call('XADD', k.outcomes, 'MAXLEN', '~', OUTCOMES_KEPT, '*', 'job', id)
    end
    if parent == 'parent' then
      wipe_job(k.jobroot, id)
    else
      redis.call('DEL', row, jkey(k.jobroot, id, ':lock'), jkey(k.jobroot, id, ':logs'), jkey(k.jobroot, id, ':attempts'))
    end
    return
  end
  local now = now_ms()
  redis.call('DEL', jkey(k.jobroot, id, ':lock'))
  if result and result ~= '' then
    redis.call('HSET', row, 'state', 'completed', 'finished_at', now, 'result', result)
  else
    redis.call('HSET', row, 'state', 'completed', 'finished_at', now)
  end
  redis.call('ZADD', k.completed, now, id)
  trim_finished(k.completed, k.jobroot, policy.ccount, policy.cage, now, function(old)
    return redis.call('HGET', jkey(k.jobroot, old), 'state') == 'completed'
  end)
end

-- finish_dead(k, id, row, now, policy): a dead-lettered row's end: stamped, indexed by finish time,
-- its idempotency key released, the dead set trimmed to the policy. k names jobroot, dead, deadat,
-- deroot.
local function finish_dead(k, id, row, now, policy)
  local f = redis.call('HMGET', row, 'dedup', 'dedup_keep')
  if f[1] then release_key(k.deroot, id, f[1], f[2]) end
  redis.call('HSET', row, 'finished_at', now)
  redis.call('ZADD', k.deadat, now, id)
  trim_finished(k.deadat, k.jobroot, policy.fcount, policy.fage, now, function(old)
    return redis.call('ZREM', k.dead, old) == 1
  end)
end
