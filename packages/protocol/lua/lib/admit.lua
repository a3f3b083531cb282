-- @lib admit
-- @purpose What every admission script writes the same way: a fresh job row and an idempotency key.

-- admit_row(row, state, payload, fields, extra): write a fresh row. `fields` are the [TS] per-job
-- option pairs the host sent ([TS] `expire_in` ms is written as `expire_at`, server ms); the spec fields (`state`, `attempts = "0"`, `payload`, then `extra`
-- pairs such as a lane's `group`) are written after them, so they win. Answers the row's flat
-- pending score: [TS] -priority (higher first, mint order within one), 0 without one.
local function admit_row(row, state, payload, fields, extra)
  local score = 0
  for i = 1, #fields - 1, 2 do
    if fields[i] == 'priority' then score = 0 - (tonumber(fields[i + 1]) or 0) end
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
