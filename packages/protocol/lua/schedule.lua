-- @script schedule
-- @purpose Admit a job that may not run before a time: absolute (`at`) or relative to the server
-- clock (`in`) (queue.md §2.4).
-- @key row        emq:{q}:job:<id>
-- @key schedule   emq:{q}:schedule
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @keys wake      optional emq:{q}:wake [TS]: when declared, a job that became the earliest in the
-- schedule pushes a due hint `d:<ms until due>`, so a parked worker wakes at its due time (a consumer
-- that does not know hints reads it as one spurious wake)
-- @arg id         the job's branded id; must be JOB-namespaced
-- @arg payload    opaque bytes
-- @arg mode       "at" (absolute epoch ms) or "in" (ms from server now)
-- @arg ms         the time or the delay, in ms
-- @args fields   [TS] per-job option pairs written into the row with it: name, max_attempts,
-- backoff (a curve spec as JSON), timeout_ms, priority (read when promote moves it to pending),
-- traceparent, tracestate (the producer's W3C trace context);
-- the spec fields are written after them and win
-- @include core events admit
-- @returns 1 scheduled, publishing `delayed` [TS] with `delayMs` (mode in) or `runAt` (mode at);
-- 0 duplicate (nothing written)
-- @error EMQKIND job id must be JOB-namespaced
if string.sub(a_id, 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
if redis.call('EXISTS', k_row) == 1 then return 0 end
local now = now_ms()
local score = tonumber(a_ms)
if a_mode == 'in' then score = now + score end
admit_row(k_row, 'scheduled', a_payload, { unpack(ARGV, 5) })
redis.call('ZADD', k_schedule, score, a_id)
ev_open(k_events, k_journal, k_meta)
ev_delayed(a_id, a_mode, a_ms)
if k_wake and redis.call('ZRANGE', k_schedule, 0, 0)[1] == a_id then due_hint(k_wake, score - now) end
return 1
