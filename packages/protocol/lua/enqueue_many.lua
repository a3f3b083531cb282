-- @script enqueue_many
-- @purpose [TS] Admit many fresh jobs to the flat pending set in one step, each exactly as enqueue
-- admits one (queue.md §2.1, §2.3): the namespace law first, then the duplicate check, then the row
-- {state: pending, attempts: "0", payload}. Rows are rooted on the job root, each id checked here.
-- One ZADD scores every new member and one token wakes a parked consumer. An item refused never
-- fails its neighbours.
-- @key jobroot    emq:{q}:job:
-- @key pending    emq:{q}:pending
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @keys wake      optional emq:{q}:wake (when declared, one token wakes a parked consumer if any job was admitted)
-- @args items     id1, payload1, id2, payload2, ...
-- @include core events
-- @returns one code per item, in order: 1 enqueued; 0 duplicate (the row exists; nothing written);
-- -1 the id is not JOB-namespaced (the EMQKIND refusal; nothing written); -2 the id fails the id
-- check (nothing written). [TS] Each admitted job publishes `waiting` when meta `events` = all
local out = {}
local scored = {}
for i = 1, #ARGV, 2 do
  local id = ARGV[i]
  local code
  if string.sub(id, 1, 3) ~= 'JOB' then
    code = -1
  elseif not vid(id) then
    code = -2
  else
    local row = jkey(k_jobroot, id)
    if redis.call('EXISTS', row) == 1 then
      code = 0
    else
      redis.call('HSET', row, 'state', 'pending', 'attempts', '0', 'payload', ARGV[i + 1])
      scored[#scored + 1] = 0
      scored[#scored + 1] = id
      code = 1
    end
  end
  out[#out + 1] = code
end
-- Lua's unpack is bounded by its C stack; score the members in slices well below it.
for i = 1, #scored, 2000 do
  redis.call('ZADD', k_pending, unpack(scored, i, math.min(i + 1999, #scored)))
end
ev_open(k_events, k_journal, k_meta)
if #scored > 0 and ev_chatty_on() then
  for i = 2, #scored, 2 do ev_emit('waiting', scored[i]) end
end
if k_wake and #scored > 0 then
  redis.call('LPUSH', k_wake, '1')
  redis.call('LTRIM', k_wake, 0, 63)
end
return out
