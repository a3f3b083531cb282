-- @lib admit
-- @purpose What every admission script writes the same way: a fresh job row and an idempotency key.

-- admit_row(row, state, payload, fields, extra): write a fresh row. `fields` are the [TS] per-job
-- option pairs the host sent; the spec fields (`state`, `attempts = "0"`, `payload`, then `extra`
-- pairs such as a lane's `group`) are written after them, so they win. Answers the row's flat
-- pending score: [TS] -priority (higher first, mint order within one), 0 without one.
local function admit_row(row, state, payload, fields, extra)
  local score = 0
  for i = 1, #fields - 1, 2 do
    if fields[i] == 'priority' then score = 0 - (tonumber(fields[i + 1]) or 0) end
  end
  for _, v in ipairs({ 'state', state, 'attempts', '0', 'payload', payload }) do fields[#fields + 1] = v end
  for _, v in ipairs(extra or {}) do fields[#fields + 1] = v end
  redis.call('HSET', row, unpack(fields))
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
