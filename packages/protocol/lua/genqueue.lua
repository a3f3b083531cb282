-- @script genqueue
-- @purpose Admit a fresh job to its group's lane and put the group in rotation when it is
-- serviceable; idempotent by id (queue.md §5.1).
-- @key row        emq:{q}:job:<id>
-- @key lane       emq:{q}:g:<g>:pending
-- @key ring       emq:{q}:ring
-- @key paused     emq:{q}:paused
-- @key glimit     emq:{q}:glimit
-- @key gactive    emq:{q}:gactive
-- @key wake       emq:{q}:wake
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @arg id         the job's branded id; must be JOB-namespaced
-- @arg payload    opaque bytes, never interpreted
-- @arg g          the group's branded id
-- @args fields   [TS] per-job option pairs written into the row with it: name, max_attempts,
-- backoff (a curve spec as JSON), timeout_ms, traceparent, tracestate (the producer's W3C trace
-- context), lane (the name the producer gave the lane whose id is g); the spec fields are written
-- after them and win
-- @include core events lanes admit
-- @returns 1 enqueued, publishing `waiting` [TS] when meta `events` = all; 0 duplicate (the row
-- exists; nothing written)
-- @error EMQKIND job id must be JOB-namespaced
-- @error EMQKIND group id must be a branded id
if string.sub(a_id, 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
local g = a_g
-- Every later script turns the row's group into a lane key, so a bad one must never be stored.
if not vid(g) then return redis.error_reply('EMQKIND group id must be a branded id') end
if redis.call('EXISTS', k_row) == 1 then return 0 end
-- Lanes ignore priority: the lane is FIFO and the rotation serves it.
admit_row(k_row, 'pending', a_payload, { unpack(ARGV, 4) }, { 'group', g })
-- [TS] The re-ring knows from the ZADD whether the lane was empty (lib lanes rering_added): no
-- `LPOS` walk over the ring.
rering_added({ ring = k_ring, paused = k_paused, glimit = k_glimit, gactive = k_gactive, wake = k_wake }, k_lane, g,
  redis.call('ZADD', k_lane, 0, a_id))
ev_open(k_events, k_journal, k_meta)
ev_chatty('waiting', a_id)
return 1
