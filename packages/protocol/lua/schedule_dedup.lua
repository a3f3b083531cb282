-- @script schedule_dedup
-- @purpose [TS] Admit a job that may not run before a time under an idempotency key: the keyed
-- admission of enqueue_dedup (queue.md §2.2) with the timing of schedule (§2.4), in one step.
-- @key row        emq:{q}:job:<id>
-- @key schedule   emq:{q}:schedule
-- @key dedup      emq:{q}:de:<did>
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @key jobroot    emq:{q}:job: [TS]: the root of the parked job's row, which a dedup mode may update (lib admit)
-- @key deroot     emq:{q}:de: [TS]: the root of the business key an `idkey` option pair names (lib admit)
-- @keys wake      optional emq:{q}:wake [TS]: when declared, a job that became the earliest in the
-- schedule (admitted, or moved by a `replace`/`debounce` hit) pushes a due hint `d:<ms until due>`,
-- so a parked worker wakes at its due time rather than at its maintenance tick
-- @arg id         the job's branded id; must be JOB-namespaced
-- @arg payload    opaque bytes
-- @arg mode       "at" (absolute epoch ms) or "in" (ms from server now)
-- @arg ms         the time or the delay, in ms
-- @arg ttl_ms     idempotency window in ms; "" parks the key without expiry
-- @args fields    per-job option pairs written into the row with it, as schedule takes them ([TS]
-- dedup_mode and dedup_ttl as enqueue_dedup reads them; `debounce` also moves a scheduled parked job
-- to this admission's due time; [TS] dedup_keep_last keeps a refusal met while the parked job is
-- active, with this admission's timing, to be admitted when that job ends)
-- [TS] idkey and idkey_keep: a business key beside the dedup id (BullMQ's jobId next to its
-- deduplication): an admission whose idkey a job holds is answered {3, holder} before the dedup id is
-- read (the `deduplicated` event names the holder, the idkey as `dedup`); an admitted job holds it
-- until it ends, then idkey_keep ms (at once when removed); a replacing dedup hit moves it to the parked job
-- @include core events admit
-- @returns {1, id} scheduled, publishing `delayed` as schedule does; {0, id} row duplicate; [TS] {3, holder}
-- idkey held; {2, parked}
-- dedup hit (nothing written but the `deduplicated` event, as enqueue_dedup publishes it)
-- @error EMQKIND job id must be JOB-namespaced
if string.sub(a_id, 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
ev_open(k_events, k_journal, k_meta)
local fields = { unpack(ARGV, 6) }
-- [TS] A business key named beside the dedup id is checked first: a job holding it answers the add.
local holder = idkey_holder(k_deroot, fields)
if holder then
  ev_emit('deduplicated', holder, { dedup = idkey_of(fields), refused = a_id })
  return { 3, holder }
end
local parked = redis.call('GET', k_dedup)
if parked then
  -- The key's own tail is the dedup id: read back as a value, never used to build a key.
  -- The due time is read off the clock only when a debounce moves the parked job.
  local due = function()
    if a_mode == 'in' then return now_ms() + tonumber(a_ms) end
    return tonumber(a_ms)
  end
  local extra = dedup_hit(k_dedup, parked, k_jobroot, a_payload, fields, k_schedule, due, { id = a_id, when = a_mode .. ':' .. a_ms })
  extra.dedup = string.match(k_dedup, '}:de:(.*)$') or ''
  extra.refused = a_id
  if extra.replaced == '1' then move_idkey(k_deroot, k_jobroot, parked, fields) end
  if k_wake and extra.replaced == '1' and redis.call('ZRANGE', k_schedule, 0, 0)[1] == parked then
    due_hint(k_wake, tonumber(redis.call('ZSCORE', k_schedule, parked)) - now_ms())
  end
  ev_emit('deduplicated', parked, extra)
  return { 2, parked }
end
if redis.call('EXISTS', k_row) == 1 then return { 0, a_id } end
local score = tonumber(a_ms)
if a_mode == 'in' then score = now_ms() + score end
admit_row(k_row, 'scheduled', a_payload, { unpack(ARGV, 6) })
park_idkey(k_deroot, fields, a_id)
redis.call('ZADD', k_schedule, score, a_id)
park_dedup(k_dedup, a_id, a_ttl_ms)
ev_delayed(a_id, a_mode, a_ms)
if k_wake and redis.call('ZRANGE', k_schedule, 0, 0)[1] == a_id then due_hint(k_wake, score - now_ms()) end
return { 1, a_id }
