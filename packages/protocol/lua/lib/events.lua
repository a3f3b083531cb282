-- @lib events
-- @purpose [TS] The one way a script publishes a lifecycle event (queue.md §12, bus.md §1): a flat
-- JSON object of strings on emq:{q}:events and, when the queue's journal is on, the same fields
-- appended to emq:{q}:journal in the same atomic step (the durable twin of the at-most-once channel).
-- The queue's settings are read from meta once per call, on first need (a claim's gate read seeds
-- them, see lib gate): meta `events` = "all" turns on the chatty events (waiting, active, drained:
-- one or more per job on the hot paths, so opt-in); meta `journal` = N > 0 appends every published event, trimmed MAXLEN ~ N. A script that never
-- calls ev_open publishes nothing through this library. Queue-level events (drained) carry
-- `job` = "" [TS]: the format keeps both fields, and an empty id is never a job's.

local EMQ_EV = { channel = false, journal = false, meta = false, read = false, chatty = false, maxlen = 0 }

-- ev_open(channel, journal, meta): where this call publishes and where the queue's settings are.
-- Nothing is read yet: a call that publishes nothing pays nothing.
local function ev_open(channel, journal, meta)
  EMQ_EV.channel = channel
  EMQ_EV.journal = journal
  EMQ_EV.meta = meta
end

-- ev_seed(events, journal): the settings as a caller already read them from meta (lib gate reads
-- them with the claim gates), so this call reads meta no second time.
local function ev_seed(events, journal)
  EMQ_EV.chatty = events == 'all'
  EMQ_EV.maxlen = tonumber(journal or '') or 0
  EMQ_EV.read = true
end

-- ev_settings(): reads meta `events` and `journal` once per call, on first need.
local function ev_settings()
  if EMQ_EV.read or not EMQ_EV.meta then return end
  local m = redis.call('HMGET', EMQ_EV.meta, 'events', 'journal')
  ev_seed(m[1], m[2])
end

-- ev_emit(name, job, extra): publishes {event = name, job = job, extra...} (extra: a table of string
-- fields, or nil), and journals it when the journal is on.
-- The JSON is written by hand around cjson's encoding of each value: a completed job publishes one
-- event, and encoding a table per event costs several times a few concatenations. `name` is a
-- literal of the caller's; a job of ASCII letters and digits only ('' or an id) needs no escaping,
-- anything else, and every extra value, goes through cjson. Readers do not depend on key order
-- (bus.md §1.1).
local function ev_emit(name, job, extra)
  local channel = EMQ_EV.channel
  if not channel then return end
  local json = '{"event":"' .. name .. '","job":' .. (string.find(job, '[^0-9A-Za-z]') and cjson.encode(job) or ('"' .. job .. '"'))
  local flat = {}
  if extra then
    for k, v in pairs(extra) do
      json = json .. ',' .. cjson.encode(k) .. ':' .. cjson.encode(v)
      flat[#flat + 1] = k
      flat[#flat + 1] = v
    end
  end
  redis.call('PUBLISH', channel, json .. '}')
  ev_settings()
  if EMQ_EV.maxlen > 0 then
    redis.call('XADD', EMQ_EV.journal, 'MAXLEN', '~', EMQ_EV.maxlen, '*', 'event', name, 'job', job, unpack(flat))
  end
end

-- ev_chatty_on(): true when the chatty events are on, so a loop can skip its work when they are not.
local function ev_chatty_on()
  ev_settings()
  return EMQ_EV.chatty
end

-- ev_chatty(name, job, extra): ev_emit for the opt-in events; nothing unless meta `events` = "all".
local function ev_chatty(name, job, extra)
  if ev_chatty_on() then ev_emit(name, job, extra) end
end

-- ev_completed(id, result): `completed` for a settled job, carrying [TS] `result` when the handler
-- gave one, whether or not the row is kept; without one, the spec's event (queue.md §12).
local function ev_completed(id, result)
  if result ~= '' then
    ev_emit('completed', id, { result = result })
  else
    ev_emit('completed', id)
  end
end

-- ev_delayed(id, mode, ms): `delayed` at admission, with `delayMs` (mode "in") or `runAt` (mode "at").
local function ev_delayed(id, mode, ms)
  if mode == 'in' then ev_emit('delayed', id, { delayMs = ms }) else ev_emit('delayed', id, { runAt = ms }) end
end

-- ev_active(entries): `active` (with the attempt) for each leased claim entry {id, payload,
-- attempts, ...}, when the chatty events are on.
local function ev_active(entries)
  if #entries == 0 or not ev_chatty_on() then return end
  for _, e in ipairs(entries) do ev_emit('active', e[1], { attempt = tostring(e[3]) }) end
end

-- ev_claimed(set, entries): after a flat claim from pending `set`, `active` (with the attempt) for
-- each leased entry {id, payload, attempts, ...}, then `drained` when the claim emptied `set`. Only
-- when the chatty events are on: a queue that did not ask pays the one meta read, no publish.
local function ev_claimed(set, entries)
  if #entries == 0 or not ev_chatty_on() then return end
  ev_active(entries)
  if redis.call('ZCARD', set) == 0 then ev_emit('drained', '') end
end
