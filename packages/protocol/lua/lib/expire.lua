-- @lib expire
-- @purpose [TS] Deadlines for waiting jobs: a row whose `expire_at` (server epoch ms) has passed is
-- never leased; the claim that meets it settles it as `expired` in the same step, retained like a
-- dead job (by the `keep_failed_*` policy of lib retain) in emq:{q}:expired, scored by finish time,
-- and publishes `expired` (with `expireAt`). Needs core, events and retain. A job without the field
-- costs nothing more: lib lease reads `expire_at` in the HMGET it already makes, and the clock and
-- the policy are read only when a deadline is met.

local EMQ_EXPIRE = { index = false, meta = false, deroot = false, now = false, policy = false }

-- expire_open(index, meta, deroot): where this claim settles the jobs it meets past their deadline
-- (the emq:{q}:expired index), the queue meta (its retention policy) and the idempotency root.
local function expire_open(index, meta, deroot)
  EMQ_EXPIRE.index = index
  EMQ_EXPIRE.meta = meta
  EMQ_EXPIRE.deroot = deroot
end

-- expire_due(root, id, row, at): settles job `id` as expired and answers true when its deadline `at`
-- has passed; false (touching nothing) otherwise, or when the script opened no index.
local function expire_due(root, id, row, at)
  local deadline = tonumber(at)
  if not deadline or not EMQ_EXPIRE.index then return false end
  if not EMQ_EXPIRE.now then EMQ_EXPIRE.now = now_ms() end
  local now = EMQ_EXPIRE.now
  if deadline > now then return false end
  if not EMQ_EXPIRE.policy then EMQ_EXPIRE.policy = keep_policy(EMQ_EXPIRE.meta) end
  local policy = EMQ_EXPIRE.policy
  local f = redis.call('HMGET', row, 'dedup', 'dedup_keep')
  if f[1] then
    release_key(EMQ_EXPIRE.deroot, id, f[1], f[2])
    release_idkey(EMQ_EXPIRE.deroot, row, id, false)
  end
  redis.call('HSET', row, 'state', 'expired', 'finished_at', now)
  redis.call('ZADD', EMQ_EXPIRE.index, now, id)
  trim_finished(EMQ_EXPIRE.index, root, policy.fcount, policy.fage, now, function(old)
    return redis.call('HGET', jkey(root, old), 'state') == 'expired'
  end)
  ev_emit('expired', id, { expireAt = at })
  return true
end
