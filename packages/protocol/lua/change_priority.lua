-- @script change_priority
-- @purpose [TS] Give a job a new priority. A job waiting in flat pending is re-scored there in the
-- same step: after every job waiting at the new priority now, or with `lifo` ahead of them (newest
-- first). A job anywhere else (scheduled, active, in a lane, waiting for children, finished) keeps
-- its place and carries the priority with it: promote, retry and fan-in score it by the field.
-- @key row        emq:{q}:job:<id>
-- @key pending    emq:{q}:pending
-- @key meta       emq:{q}:meta [TS]: the queue's placement count `lifo_seq`, shared with lib admit's
-- LIFO admissions so one count orders every placement
-- @arg id         the job's id
-- @arg priority   the new priority, an integer within ±2^21, higher first; "0" for none
-- @arg lifo       "1": ahead of the jobs waiting at the new priority; "": after them
-- @args payload   optional: the job's new payload, written in the same step (for a host that keeps a
-- copy of the priority inside its payload)
-- @returns 1 re-scored in pending; 0 not in flat pending (the field and payload changed, nothing
-- moved); -1 gone (nothing written)
if redis.call('EXISTS', k_row) == 0 then return -1 end
local priority = tonumber(a_priority) or 0
redis.call('HSET', k_row, 'priority', string.format('%d', priority))
if a_payload then redis.call('HSET', k_row, 'payload', a_payload) end
if not redis.call('ZSCORE', k_pending, a_id) then return 0 end
-- Fresh admissions at priority p score exactly -p, LIFO ones in (-p - 1, -p - 0.5] (lib admit). A
-- job moved to the tail takes -p + n * 2^-31: after the jobs at -p, in the order of the moves, and
-- below the next priority's LIFO range while n < 2^28 (exact in a double for |p| <= 2^21).
local n = redis.call('HINCRBY', k_meta, 'lifo_seq', 1) % 536870912
local score
if a_lifo == '1' then
  score = 0 - priority - 0.5 - n / 1073741824
else
  score = 0 - priority + n / 2147483648
end
redis.call('ZADD', k_pending, score, a_id)
return 1
