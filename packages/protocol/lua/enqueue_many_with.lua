-- @script enqueue_many_with
-- @purpose [TS] Admit many fresh jobs that carry per-job options in one step (queue.md §2.3 with the
-- options of §2.1 and §2.4): each item exactly as enqueue (now) or schedule (at a time) admits one,
-- its option pairs written into its row by the same admit_row. An item refused never fails its
-- neighbours. Plain items go through enqueue_many, whose shape this one leaves untouched.
-- @key jobroot    emq:{q}:job:
-- @key pending    emq:{q}:pending
-- @key schedule   emq:{q}:schedule
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events) and LIFO count (lib admit)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @keys wake      optional emq:{q}:wake (when declared: one token if any job went to pending, and a due
-- hint `d:<ms>` when a scheduled item became the earliest in the schedule, as schedule pushes)
-- @args items     per item: id, payload, mode ("" now, "in" ms from server now, "at" epoch ms), ms,
-- n (how many option values follow: field/value pairs as enqueue takes them), then those n values
-- @include core events admit
-- @returns one code per item, in order: 1 admitted; 0 duplicate (the row exists; nothing written);
-- -1 the id is not JOB-namespaced (nothing written); -2 the id fails the id check (nothing written).
-- [TS] A scheduled item publishes `delayed` with `delayMs` (mode in) or `runAt` (mode at), as
-- schedule does; an item admitted now publishes `waiting` when meta `events` = all
ev_open(k_events, k_journal, k_meta)
local out = {}
local now = nil
local flat, earliest = 0, nil
local i = 1
while i <= #ARGV do
  local id, payload, mode, ms, n = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], tonumber(ARGV[i + 4])
  local fields = {}
  for j = 1, n do fields[j] = ARGV[i + 4 + j] end
  i = i + 5 + n
  local code
  if string.sub(id, 1, 3) ~= 'JOB' then
    code = -1
  elseif not vid(id) then
    code = -2
  else
    local row = jkey(k_jobroot, id)
    if redis.call('EXISTS', row) == 1 then
      code = 0
    elseif mode == '' then
      redis.call('ZADD', k_pending, admit_row(row, 'pending', payload, fields, nil, k_meta), id)
      flat = flat + 1
      ev_chatty('waiting', id)
      code = 1
    else
      now = now or now_ms()
      local due = tonumber(ms)
      if mode == 'in' then due = now + due end
      admit_row(row, 'scheduled', payload, fields)
      redis.call('ZADD', k_schedule, due, id)
      if not earliest or due < earliest then earliest = due end
      ev_delayed(id, mode, ms)
      code = 1
    end
  end
  out[#out + 1] = code
end
if k_wake then
  if flat > 0 then
    redis.call('LPUSH', k_wake, '1')
    redis.call('LTRIM', k_wake, 0, 63)
  end
  if earliest then
    local head = redis.call('ZRANGE', k_schedule, 0, 0, 'WITHSCORES')
    if head[2] and tonumber(head[2]) >= earliest then due_hint(k_wake, earliest - now) end
  end
end
return out
