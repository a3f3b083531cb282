-- @script enqueue
-- @purpose Admit a fresh job to the flat pending set; idempotent by id (queue.md §2.1).
-- @key row        emq:{q}:job:<id>
-- @key pending    emq:{q}:pending
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events) and LIFO count (lib admit)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @keys wake      optional emq:{q}:wake [TS]: when declared, one token wakes a parked consumer
-- @arg id         the job's branded id; must be JOB-namespaced
-- @arg payload    opaque bytes, never interpreted
-- @args fields   [TS] per-job option pairs written into the row with it: name, max_attempts,
-- backoff (a curve spec as JSON), timeout_ms, priority (scores the pending entry -priority),
-- traceparent, tracestate (the producer's W3C trace context), [TS] lifo (claimed ahead of its
-- priority, newest first, counted in meta `lifo_seq`), timestamp (the app's created time); the
-- spec fields are written after them and win
-- @include events admit
-- @returns 1 enqueued; 0 duplicate (the row exists; nothing written). [TS] An admitted job publishes
-- `waiting` when meta `events` = all
-- @error EMQKIND job id must be JOB-namespaced
if string.sub(a_id, 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
if redis.call('EXISTS', k_row) == 1 then return 0 end
local score = admit_row(k_row, 'pending', a_payload, { unpack(ARGV, 3) }, nil, k_meta)
redis.call('ZADD', k_pending, score, a_id)
ev_open(k_events, k_journal, k_meta)
ev_chatty('waiting', a_id)
if k_wake then
  redis.call('LPUSH', k_wake, '1')
  redis.call('LTRIM', k_wake, 0, 63)
end
return 1
