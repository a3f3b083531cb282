-- @script enqueue_dedup
-- @purpose Admit a job under an idempotency key: the key parks the first job's id, optionally for a
-- TTL, and later admissions under it report that id (queue.md §2.2).
-- @key row        emq:{q}:job:<id>
-- @key pending    emq:{q}:pending
-- @key dedup      emq:{q}:de:<did>
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events) and LIFO count (lib admit)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @key jobroot    emq:{q}:job: [TS]: the root of the parked job's row, which a dedup mode may update (lib admit)
-- @key deroot     emq:{q}:de: [TS]: the root of the business key an `idkey` option pair names (lib admit)
-- @keys wake      optional emq:{q}:wake [TS]
-- @arg id         the job's branded id; must be JOB-namespaced
-- @arg payload    opaque bytes
-- @arg ttl_ms     idempotency window in ms; "" parks the key without expiry
-- @args fields   [TS] per-job option pairs written into the row with it: name, max_attempts,
-- backoff (a curve spec as JSON), timeout_ms, priority (scores the pending entry -priority),
-- traceparent, tracestate (the producer's W3C trace context), [TS] lifo (claimed ahead of its
-- priority, newest first, counted in meta `lifo_seq`), timestamp (the app's created time), [TS] dedup_mode and dedup_ttl (what
-- a refused admission does to the parked job: lib admit's dedup_hit), [TS] dedup_keep_last (a refusal
-- while the parked job is active is kept on its row and admitted when it ends); the spec fields are written
-- after them and win
-- [TS] idkey and idkey_keep: a business key beside the dedup id (BullMQ's jobId next to its
-- deduplication): an admission whose idkey a job holds is answered {3, holder} before the dedup id is
-- read (the `deduplicated` event names the holder, the idkey as `dedup`); an admitted job holds it
-- until it ends, then idkey_keep ms (at once when removed); a replacing dedup hit moves it to the parked job
-- @include core events admit
-- @returns {1, id} enqueued; {0, id} row duplicate; [TS] {3, holder} idkey held; {2, parked} dedup hit (nothing written but
-- [TS] the `deduplicated` event: the parked id as `job` (the job kept), the dedup id as `dedup`, this
-- admission's id as `refused`; with a dedup mode, `mode` and `replaced`, after dedup_hit's writes; `kept` when kept). [TS] An admitted job publishes `waiting` when meta `events` = all
-- @error EMQKIND job id must be JOB-namespaced
if string.sub(a_id, 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
ev_open(k_events, k_journal, k_meta)
local fields = { unpack(ARGV, 4) }
-- [TS] A business key named beside the dedup id is checked first: a job holding it answers the add.
local holder = idkey_holder(k_deroot, fields)
if holder then
  ev_emit('deduplicated', holder, { dedup = idkey_of(fields), refused = a_id })
  return { 3, holder }
end
local parked = redis.call('GET', k_dedup)
if parked then
  -- The key's own tail is the dedup id: read back as a value, never used to build a key.
  local extra = dedup_hit(k_dedup, parked, k_jobroot, a_payload, fields, nil, nil, { id = a_id, when = '' })
  extra.dedup = string.match(k_dedup, '}:de:(.*)$') or ''
  extra.refused = a_id
  if extra.replaced == '1' then move_idkey(k_deroot, k_jobroot, parked, fields) end
  ev_emit('deduplicated', parked, extra)
  return { 2, parked }
end
if redis.call('EXISTS', k_row) == 1 then return { 0, a_id } end
local score = admit_row(k_row, 'pending', a_payload, { unpack(ARGV, 4) }, nil, k_meta)
park_idkey(k_deroot, fields, a_id)
redis.call('ZADD', k_pending, score, a_id)
park_dedup(k_dedup, a_id, a_ttl_ms)
ev_chatty('waiting', a_id)
if k_wake then
  redis.call('LPUSH', k_wake, '1')
  redis.call('LTRIM', k_wake, 0, 63)
end
return { 1, a_id }
