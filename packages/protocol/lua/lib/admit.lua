-- @lib admit
-- @purpose What every admission script writes the same way: a fresh job row and an idempotency key,
-- and [TS] what a keyed admission with a dedup mode does to the job it was refused for; [TS] the
-- business key an admission may name beside its dedup id (option pairs `idkey`, `idkey_keep`).

-- admit_row(row, state, payload, fields, extra): write a fresh row. `fields` are the [TS] per-job
-- option pairs the host sent ([TS] `expire_in` ms is written as `expire_at`, server ms); the spec fields (`state`, `attempts = "0"`, `payload`, then `extra`
-- pairs such as a lane's `group`) are written after them, so they win. Answers the row's flat
-- pending score: [TS] -priority (higher first, mint order within one), 0 without one; [TS] with a
-- `lifo` pair and the queue's `meta` given, a score ahead of its priority's (see below).
local function admit_row(row, state, payload, fields, extra, meta)
  local score = 0
  local lifo = false
  for i = 1, #fields - 1, 2 do
    if fields[i] == 'priority' then score = 0 - (tonumber(fields[i + 1]) or 0) end
    if fields[i] == 'lifo' then lifo = true end
    -- [TS] A deadline given as a span is kept as the server time it ends at (lib expire reads it).
    if fields[i] == 'expire_in' then
      local t = redis.call('TIME')
      fields[i] = 'expire_at'
      fields[i + 1] = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + (tonumber(fields[i + 1]) or 0))
    end
  end
  for _, v in ipairs({ 'state', state, 'attempts', '0', 'payload', payload }) do fields[#fields + 1] = v end
  for _, v in ipairs(extra or {}) do fields[#fields + 1] = v end
  redis.call('HSET', row, unpack(fields))
  if lifo and meta then
    -- [TS] LIFO: ahead of every job of its priority, the newest first. The queue's LIFO count
    -- (meta `lifo_seq`) orders them: -priority - 0.5 - n * 2^-30 stays exact for any priority within
    -- ±2^21 and above the next priority's -priority - 1 while n < 2^29 (then it wraps).
    local n = redis.call('HINCRBY', meta, 'lifo_seq', 1) % 536870912
    score = score - 0.5 - n / 1073741824
  end
  return score
end

-- park_dedup(key, id, ttl_ms): the idempotency key names the first job admitted under it, for
-- `ttl_ms` ms, or for ever when it is "".
local function park_dedup(key, id, ttl_ms)
  if ttl_ms == '' then
    redis.call('SET', key, id, 'NX')
  else
    redis.call('SET', key, id, 'NX', 'PX', ttl_ms)
  end
end

-- [TS] dedup_hit(key, parked, jobroot, payload, fields, schedule, due): what an admission refused
-- by its idempotency key still does when its option pairs carry `dedup_mode` (BullMQ's extend and
-- replace deduplication): `extend` restarts the key's TTL window (the `dedup_ttl` pair, ms);
-- `replace` gives the parked job this admission's payload while it is still waiting (pending or
-- scheduled); `debounce` does both. With `replace` or `debounce`, when `schedule` and `due` are
-- given (a timed admission) and the parked job is scheduled, it moves to `due()` (a function, so the
-- clock is read only then): the replaced job runs when the admission that replaced it asked, as
-- BullMQ's replace removes the delayed job and adds the new one with its own delay. Answers the `deduplicated` event's extra fields:
-- `mode`, and `replaced` = "1" when the payload was replaced. Without a mode it touches nothing.
-- [TS] With a `dedup_keep_last` pair (BullMQ's keepLastIfActive) and the parked job active, the
-- refused admission is kept on the parked row instead (`next_id`, `next_payload`, `next_fields` as
-- JSON, `next_when` = `refused.when`: "" or "in:<ms>" or "at:<ms>"), the newest replacing an older
-- one; lib retain admits it when the parked job ends (admit_kept). Answers `kept` = "1" then.
local function dedup_hit(key, parked, jobroot, payload, fields, schedule, due, refused)
  local mode, ttl, keep_last
  for i = 1, #fields - 1, 2 do
    if fields[i] == 'dedup_mode' then mode = fields[i + 1] end
    if fields[i] == 'dedup_ttl' then ttl = tonumber(fields[i + 1]) end
    if fields[i] == 'dedup_keep_last' then keep_last = true end
  end
  if keep_last and refused and vid(parked) then
    local row = jkey(jobroot, parked)
    if redis.call('HGET', row, 'state') == 'active' then
      redis.call('HSET', row, 'next_id', refused.id, 'next_payload', payload, 'next_fields', cjson.encode(fields), 'next_when', refused.when)
      return { kept = '1' }
    end
  end
  if not mode then return {} end
  local out = { mode = mode, replaced = '0' }
  if (mode == 'extend' or mode == 'debounce') and ttl then redis.call('PEXPIRE', key, ttl) end
  if (mode == 'replace' or mode == 'debounce') and vid(parked) then
    local row = jkey(jobroot, parked)
    local state = redis.call('HGET', row, 'state')
    if state == 'pending' or state == 'scheduled' then
      redis.call('HSET', row, 'payload', payload)
      out.replaced = '1'
      if schedule and due and state == 'scheduled' then redis.call('ZADD', schedule, 'XX', due(), parked) end
    end
  end
  return out
end

-- [TS] idkey_of(fields): the business key an admission names beside its dedup id (option pair
-- `idkey`, BullMQ's `jobId` next to its `deduplication`), or nil. The row keeps the pair, so the
-- ending scripts find the key to release (lib retain's release_idkey).
local function idkey_of(fields)
  for i = 1, #fields - 1, 2 do
    if fields[i] == 'idkey' then return fields[i + 1] end
  end
  return nil
end

-- [TS] idkey_holder(DR, fields): the job that already holds the admission's business key, or nil.
local function idkey_holder(dr, fields)
  local idk = idkey_of(fields)
  if not idk then return nil end
  return redis.call('GET', dkey(dr, idk))
end

-- [TS] park_idkey(DR, fields, id): the business key names the admitted job, without expiry: it is
-- released (or kept `idkey_keep` ms) when the job ends.
local function park_idkey(dr, fields, id)
  local idk = idkey_of(fields)
  if idk then redis.call('SET', dkey(dr, idk), id, 'NX') end
end

-- [TS] move_idkey(DR, JR, parked, fields): a refused admission whose payload replaced the parked
-- job's (a `replace` or `debounce` dedup mode) makes that job the one its business key names, as
-- the job now carries that admission's identity; the key the job held before is released.
local function move_idkey(dr, jr, parked, fields)
  local idk = idkey_of(fields)
  if not idk or not vid(parked) then return end
  local row = jkey(jr, parked)
  local old = redis.call('HGET', row, 'idkey')
  if old and old ~= idk and vdid(old) and redis.call('GET', dkey(dr, old)) == parked then redis.call('DEL', dkey(dr, old)) end
  redis.call('SET', dkey(dr, idk), parked, 'NX')
  local keep = nil
  for i = 1, #fields - 1, 2 do
    if fields[i] == 'idkey_keep' then keep = fields[i + 1] end
  end
  redis.call('HSET', row, 'idkey', idk)
  if keep then redis.call('HSET', row, 'idkey_keep', keep) else redis.call('HDEL', row, 'idkey_keep') end
end
