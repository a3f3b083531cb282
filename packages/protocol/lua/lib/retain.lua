-- @lib retain
-- @purpose [TS] What a job leaves behind when it ends: the retention of finished rows (queue meta's
-- `keep_*` fields) and the release of the idempotency key a row names, [TS] with the admission a
-- row kept for when it ends (admit_kept). Needs core.
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
-- [TS] Recent completions kept in emq:{q}:outcomes when completed rows are not retained: one entry
-- per completing call, `jobs <n>` then `<id> <token>[:<result>]` per job (protocol
-- formats/outcomes-entry.ts reads it), trimmed (MAXLEN ~) to the entries that hold about this many
-- completions at the size of the newest. One XADD per call, not one per job.
local OUTCOMES_KEPT = 1000
-- Most jobs one outcomes entry holds: keeps the XADD's arguments well below Lua's unpack bound.
local OUTCOMES_PER_ENTRY = 1000
-- Most members one dead-lettering trims: bounded work per call; each call adds one, so a set over
-- its bound after a policy change still converges.
local RETAIN_TRIM = 8
-- Completed retention trims in bulk: a completing call trims only when the index is past its count
-- bound by more than the slack (count / 16, at most 256; 0 under 16, so a small bound is exact), then
-- back down to the bound, at most RETAIN_TRIM_BULK members per call. A bound of 1,000 thus holds
-- 1,000 to 1,062 rows, and a completion pays the trim's reads and deletes once per ~62 jobs.
local RETAIN_TRIM_BULK = 512

-- retain_slack(count): how far the completed index may run past its count bound before a trim.
local function retain_slack(count)
  return math.min(math.floor(count / 16), 256)
end

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

-- [TS] release_idkey(DR, row, id, removed): frees the business key a row names beside its dedup id
-- (`idkey`, lib admit) as release_key frees a business key: kept `idkey_keep` ms after the job ends,
-- freed at once when the job is removed. Only rows with a dedup id can have one.
local function release_idkey(dr, row, id, removed)
  local f = redis.call('HMGET', row, 'idkey', 'idkey_keep')
  if not f[1] then return end
  local keep = f[2]
  if removed then keep = nil end
  release_key(dr, id, f[1], keep)
end

-- wipe_released(JR, DR, id): deletes a job that is removed rather than finished (remove, drain,
-- clean, obliterate) with its sub-keys, releasing the idempotency key its row names (a key with a
-- TTL is left to expire by it).
local function wipe_released(jr, dr, id)
  local did = redis.call('HGET', jkey(jr, id), 'dedup')
  if did then
    release_key(dr, id, did, nil)
    release_idkey(dr, jkey(jr, id), id, true)
  end
  wipe_job(jr, id)
end

-- del_keys(keys): DEL of every key, in slices well below Lua's unpack bound.
local function del_keys(keys)
  for i = 1, #keys, 1000 do
    redis.call('DEL', unpack(keys, i, math.min(i + 999, #keys)))
  end
end

-- trim_finished(set, JR, count, age, now, still, most?, slack?): drops the oldest members of a
-- retention index past its bounds, at most `most` (RETAIN_TRIM when nil), and past the count bound
-- only once it is exceeded by more than `slack` (0 when nil); a member's row is wiped only when
-- still(id) says it is still that finished job (an index member can outlive its state: a reprocessed
-- or removed job): with every sub-key it may own, or, when still(id) answers 'plain', with its
-- :logs alone (a plain job's :lock went at its completion). The members leave in one ZREM and the
-- rows in one DEL per slice.
local function trim_finished(set, root, count, age, now, still, most, slack)
  most = most or RETAIN_TRIM
  local ids = {}
  if age then
    ids = redis.call('ZRANGEBYSCORE', set, '-inf', now - age, 'LIMIT', 0, most)
  end
  if #ids < most and count >= 0 then
    local over = redis.call('ZCARD', set) - #ids - count
    if over > (slack or 0) then
      for _, id in ipairs(redis.call('ZRANGE', set, #ids, #ids + math.min(over, most - #ids) - 1)) do ids[#ids + 1] = id end
    end
  end
  if #ids == 0 then return end
  for i = 1, #ids, 1000 do
    redis.call('ZREM', set, unpack(ids, i, math.min(i + 999, #ids)))
  end
  local gone = {}
  for _, id in ipairs(ids) do
    local how = vid(id) and still(id)
    if how == 'plain' then
      gone[#gone + 1] = jkey(root, id)
      gone[#gone + 1] = jkey(root, id, ':logs')
    elseif how then
      -- Every registered sub-key (core's list from JOB_SUBS), the attempt history [TS] included.
      gone[#gone + 1] = jkey(root, id)
      for _, suffix in ipairs(EMQ_JOB_SUB_LIST) do gone[#gone + 1] = jkey(root, id, suffix) end
    end
  end
  del_keys(gone)
end

-- gathered(k, name): the list k[name] that a call's completions fill for retain_flush, made on first use.
local function gathered(k, name)
  local list = k[name]
  if not list then
    list = {}
    k[name] = list
  end
  return list
end

-- [TS] admit_kept(k, id, row, did): when the row keeps a refused admission (lib admit's dedup_hit,
-- BullMQ's keepLastIfActive), admits it now that the row's job ended: a fresh row from the kept
-- option pairs, in pending (scored by its priority) or, with a kept delay or time, in the schedule,
-- and the idempotency key `did` re-parked on it without expiry, so the next job with that key is
-- again the only one. Nothing when k names no pending set (an ending path that cannot admit), when
-- another job took the key meanwhile or the kept id's row exists. k names jobroot, deroot, pending,
-- schedule and optionally wake.
local function admit_kept(k, id, row, did)
  if not k.pending then return end
  local f = redis.call('HMGET', row, 'next_id', 'next_payload', 'next_fields', 'next_when')
  if not f[1] then return end
  redis.call('HDEL', row, 'next_id', 'next_payload', 'next_fields', 'next_when')
  local nid = f[1]
  if not vid(nid) or not vdid(did) then return end
  local key = dkey(k.deroot, did)
  local holder = redis.call('GET', key)
  if holder and holder ~= id then return end
  local nrow = jkey(k.jobroot, nid)
  if redis.call('EXISTS', nrow) == 1 then return end
  local now = now_ms()
  local fields = cjson.decode(f[3])
  local score = 0
  for i = 1, #fields - 1, 2 do
    if fields[i] == 'priority' then score = 0 - (tonumber(fields[i + 1]) or 0) end
    if fields[i] == 'expire_in' then
      fields[i] = 'expire_at'
      fields[i + 1] = string.format('%d', now + (tonumber(fields[i + 1]) or 0))
    end
  end
  local how, ms = string.match(f[4] or '', '^(%a+):(%d+)$')
  local due
  if how == 'in' and tonumber(ms) > 0 then due = now + tonumber(ms) end
  if how == 'at' then due = tonumber(ms) end
  -- An ending path without the schedule (a stalled job's sweep) admits the kept job at once.
  if not k.schedule then due = nil end
  for _, v in ipairs({ 'state', due and 'scheduled' or 'pending', 'attempts', '0', 'payload', f[2] }) do fields[#fields + 1] = v end
  redis.call('HSET', nrow, unpack(fields))
  redis.call('SET', key, nid)
  -- [TS] A kept admission that named a business key (`idkey`) holds it from now on.
  for i = 1, #fields - 1, 2 do
    if fields[i] == 'idkey' and vdid(fields[i + 1]) then redis.call('SET', dkey(k.deroot, fields[i + 1]), nid, 'NX') end
  end
  if due then
    redis.call('ZADD', k.schedule, due, nid)
    if k.wake and redis.call('ZRANGE', k.schedule, 0, 0)[1] == nid then due_hint(k.wake, due - now) end
  else
    redis.call('ZADD', k.pending, score, nid)
    if k.wake then
      redis.call('LPUSH', k.wake, '1')
      redis.call('LTRIM', k.wake, 0, 63)
    end
  end
end

-- finish_completed(k, id, row, result, dedup, keep, parent, policy, token): the row's end on
-- completion. k names jobroot, completed (the index), deroot and outcomes (the recent completions);
-- `parent` is the row's `flow` field; `token` the attempt that completed it. Keeping none deletes
-- the row and its sub-keys (a plain job's three, gathered in k.gone for one DEL per call; a flow
-- parent's seven, at once), reads no clock, and gathers the verdict in k.done for the call's one
-- outcomes entry. Keeping writes the row's own fields now
-- (state, finish time, result) and gathers the rest in k.kept. Either way retain_flush, called once
-- after the call's last completion, pays the XADD, the clock read, the lock markers' DEL, the
-- index's ZADD and the trim once per call, not per job.
local function finish_completed(k, id, row, result, dedup, keep, parent, policy, token)
  if dedup then
    release_key(k.deroot, id, dedup, keep)
    release_idkey(k.deroot, row, id, false)
    admit_kept(k, id, row, dedup)
  end
  if policy.ccount == 0 then
    -- [TS] The row goes, so its verdict is kept a little while in a short stream: a waiter that
    -- comes after a fast job finished reads it there, and a worker whose resend heard `gone` finds
    -- its own token there. Bounded memory.
    local done = gathered(k, 'done')
    done[#done + 1] = id
    if result and result ~= '' then
      done[#done + 1] = token .. ':' .. result
    else
      done[#done + 1] = token
    end
    if parent == 'parent' then
      wipe_job(k.jobroot, id)
    else
      -- [TS] A plain row and its sub-keys go in retain_flush's one DEL for the whole call: one
      -- command per call, not per job. The caller must not complete the same id twice in a call.
      local gone = gathered(k, 'gone')
      gone[#gone + 1] = row
      gone[#gone + 1] = jkey(k.jobroot, id, ':lock')
      gone[#gone + 1] = jkey(k.jobroot, id, ':logs')
      gone[#gone + 1] = jkey(k.jobroot, id, ':attempts')
    end
    return
  end
  local kept = k.kept
  if not kept then
    kept = { now = now_ms(), locks = {}, index = {} }
    k.kept = kept
  end
  if result and result ~= '' then
    redis.call('HSET', row, 'state', 'completed', 'finished_at', kept.now, 'result', result)
  else
    redis.call('HSET', row, 'state', 'completed', 'finished_at', kept.now)
  end
  kept.locks[#kept.locks + 1] = jkey(k.jobroot, id, ':lock')
  kept.index[#kept.index + 1] = kept.now
  kept.index[#kept.index + 1] = id
end

-- outcomes_flush(k): [TS] the verdicts finish_completed gathered in k.done, in one outcomes entry
-- (OUTCOMES_PER_ENTRY jobs at most each), the stream trimmed to about OUTCOMES_KEPT completions.
local function outcomes_flush(k)
  local done = k.done
  if not done then return end
  k.done = nil
  local step = OUTCOMES_PER_ENTRY * 2
  for i = 1, #done, step do
    local last = math.min(i + step - 1, #done)
    local n = (last - i + 1) / 2
    redis.call('XADD', k.outcomes, 'MAXLEN', '~', math.ceil(OUTCOMES_KEPT / n), '*', 'jobs', n, unpack(done, i, last))
  end
end

-- retain_flush(k, policy): what the completions of one call gathered in k.gone, k.done and k.kept
-- (finish_completed), written at once: the deleted rows' DEL, the outcomes entry, the lock markers' DEL, the index's ZADD, then the bulk trim of the index (see
-- RETAIN_TRIM_BULK). Nothing when the call kept no row.
local function retain_flush(k, policy)
  if k.gone then
    del_keys(k.gone)
    k.gone = nil
  end
  outcomes_flush(k)
  local kept = k.kept
  if not kept then return end
  k.kept = nil
  del_keys(kept.locks)
  for i = 1, #kept.index, 1000 do
    redis.call('ZADD', k.completed, unpack(kept.index, i, math.min(i + 999, #kept.index)))
  end
  trim_finished(k.completed, k.jobroot, policy.ccount, policy.cage, kept.now, function(old)
    local f = redis.call('HMGET', jkey(k.jobroot, old), 'state', 'flow')
    if f[1] ~= 'completed' then return false end
    if f[2] == 'parent' then return true end
    return 'plain'
  end, RETAIN_TRIM_BULK, retain_slack(policy.ccount))
end

-- finish_dead(k, id, row, now, policy): a dead-lettered row's end: stamped, indexed by finish time,
-- its idempotency key released, the dead set trimmed to the policy. k names jobroot, dead, deadat,
-- deroot.
local function finish_dead(k, id, row, now, policy)
  local f = redis.call('HMGET', row, 'dedup', 'dedup_keep')
  if f[1] then
    release_key(k.deroot, id, f[1], f[2])
    release_idkey(k.deroot, row, id, false)
    admit_kept(k, id, row, f[1])
  end
  redis.call('HSET', row, 'finished_at', now)
  redis.call('ZADD', k.deadat, now, id)
  trim_finished(k.deadat, k.jobroot, policy.fcount, policy.fage, now, function(old)
    return redis.call('ZREM', k.dead, old) == 1
  end)
end
