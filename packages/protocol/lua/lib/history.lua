-- @lib history
-- @purpose [TS] The operator's memory of a queue: each job's attempt history (the flight recorder)
-- and per-minute counts of completions and failures. Both are off until the queue meta asks, so a
-- queue that did not ask pays no command for them. Needs core.
--
-- Settings, read from meta with the read a script already does (or one HMGET on a failure path):
--   history  N > 0 keeps the last N attempts of each job in emq:{q}:job:<id>:attempts, a LIST of
--            records, oldest first, deleted with the row (core wipe_job, lib retain):
--              start  "<token>\ts\t<at>"                     a claim leased the job at server ms <at>
--              end    "<token>\te\t<at>\t<outcome>\t<error>"  outcome: completed, retried, failed
--                     (dead-lettered), stalled or delayed; error cut to HIST_ERROR_BYTES
--            A start and its end pair by token; the list is trimmed at each start to the last N-1
--            attempts plus the new one. A completion whose row is not kept records no end.
--   minutes  M > 0 counts each completion in emq:{q}:metrics:completed and each failed attempt
--            (retried or dead) in emq:{q}:metrics:failed under the field m:<epoch minute>, next to
--            the spec's `count`; at a minute's first event, fields older than M minutes are dropped.

local HIST_ERROR_BYTES = 1024
local EMQ_HIST = { read = false, n = 0, minutes = 0, now = false }

-- hist_now(): the server clock, read once per call (every record of a batch shares it).
local function hist_now()
  if not EMQ_HIST.now then EMQ_HIST.now = now_ms() end
  return EMQ_HIST.now
end

-- hist_seed(history, minutes): the settings as a caller read them from meta.
local function hist_seed(history, minutes)
  EMQ_HIST.n = tonumber(history or '') or 0
  EMQ_HIST.minutes = tonumber(minutes or '') or 0
  EMQ_HIST.read = true
end

-- hist_read(meta): the settings, read once per call (one HMGET) when no caller seeded them.
local function hist_read(meta)
  if not EMQ_HIST.read then
    local f = redis.call('HMGET', meta, 'history', 'minutes')
    hist_seed(f[1], f[2])
  end
  return EMQ_HIST
end

-- hist_claimed(root, entries): a start record for each claim entry {id, payload, attempts, ...}.
local function hist_claimed(root, entries)
  local n = EMQ_HIST.n
  if n <= 0 or #entries == 0 then return end
  local at = string.format('%d', hist_now())
  for _, e in ipairs(entries) do
    local key = jkey(root, e[1], ':attempts')
    if redis.call('RPUSH', key, e[3] .. '\ts\t' .. at) > 2 * n - 1 then
      redis.call('LTRIM', key, 1 - 2 * n, -1)
    end
  end
end

-- hist_end(root, id, token, outcome, err): the end record of attempt `token` (nil: the row's
-- current attempts) of job `id`, whose row must still exist.
local function hist_end(root, id, token, outcome, err)
  local n = EMQ_HIST.n
  if n <= 0 or not vid(id) then return end
  token = token or redis.call('HGET', jkey(root, id), 'attempts') or ''
  err = err or ''
  if #err > HIST_ERROR_BYTES then err = string.sub(err, 1, HIST_ERROR_BYTES) end
  local key = jkey(root, id, ':attempts')
  if redis.call('RPUSH', key, token .. '\te\t' .. string.format('%d', hist_now()) .. '\t' .. outcome .. '\t' .. err) > 2 * n then
    redis.call('LTRIM', key, -2 * n, -1)
  end
end

-- per_minute(metrics, count): counts `count` events in this minute's field of a metrics hash.
local function per_minute(metrics, count)
  local keep = EMQ_HIST.minutes
  if keep <= 0 or count <= 0 then return end
  local minute = math.floor(hist_now() / 60000)
  if redis.call('HINCRBY', metrics, 'm:' .. minute, count) ~= count then return end
  -- A minute's first event: drop what fell out of the window (at most once a minute per hash).
  if redis.call('HLEN', metrics) <= keep + 1 then return end
  for _, field in ipairs(redis.call('HKEYS', metrics)) do
    local m = tonumber(string.match(field, '^m:(%d+)$') or '')
    if m and m <= minute - keep then redis.call('HDEL', metrics, field) end
  end
end

-- hist_settled(meta, root, id, token, outcome, err, metrics): an attempt's end off the success path
-- (retried, failed, stalled, delayed): reads the settings if no caller did, records the end, and
-- counts one failure in `metrics` when given (the failed-attempt counter).
local function hist_settled(meta, root, id, token, outcome, err, metrics)
  hist_read(meta)
  hist_end(root, id, token, outcome, err)
  if metrics then per_minute(metrics, 1) end
end

-- hist_completed(root, id, token, policy): a completion's end record, only where the row is kept
-- (policy.ccount ~= 0; else the row and its history are already gone). Settings seeded by the caller.
local function hist_completed(root, id, token, policy)
  if policy.ccount ~= 0 then hist_end(root, id, token, 'completed', '') end
end
