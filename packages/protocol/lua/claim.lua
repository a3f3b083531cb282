-- @script claim
-- @purpose Lease the oldest pending job to one worker: pop it, mint the next token, score its lease
-- in active (queue.md §3.1). A paused queue claims nothing; nor does one at its [TS] concurrency cap
-- or rate limit (lib gate).
-- @key pending    emq:{q}:pending
-- @key active     emq:{q}:active
-- @key meta       emq:{q}:meta
-- @key jobroot    emq:{q}:job:
-- @key limiter    emq:{q}:limiter [TS]: the rate window's counter (see lib gate)
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @key expired    emq:{q}:expired [TS]: jobs a claim met past their deadline, by finish time (lib expire)
-- @key deroot     emq:{q}:de: [TS]: the root of the idempotency key an expired row names (lib expire)
-- @arg lease_ms   lease length in ms, from server now
-- @args extras     [TS] optional: the marker TTL in ms (0 for none): when given, the worker-presence
-- marker job:<id>:lock is written with the token in the same step, so the lock plane costs no round
-- trip; then the claim ticket (lib lease), which claim_recover finds the job by if the reply is lost
-- @argtail   marker_ms ticket
-- @include core history events retain expire lease gate
-- @returns {} when nothing is claimable; else {id, payload, attempts, parent, parent_queue,
-- parent_policy, name, max_attempts, backoff, timeout_ms, traceparent, tracestate} (absent fields
-- are false, so the host needs no second read; the last six are the [TS] per-job options and the
-- producer's W3C trace context). [TS] Publishes `active` (with the attempt) for the job and
-- `drained` when it was the last pending one, when meta `events` = all
local room, _, window = gate_room(k_meta, k_active, k_limiter, 1)
ev_open(k_events, k_journal, k_meta)
expire_open(k_expired, k_meta, k_deroot)
if room < 1 then return {} end
local lease = tonumber(a_lease_ms)
local marker = tonumber(a_marker_ms or '0') or 0
lease_ticket_set(a_ticket)
-- An id that fails the check or whose row is gone is dropped from pending; the next one is tried.
while true do
  local popped = redis.call('ZPOPMIN', k_pending)
  if #popped == 0 then return {} end
  local out = lease_popped(k_active, k_jobroot, popped, lease, marker)
  if out[1] then
    hist_claimed(k_jobroot, out)
    gate_count(k_limiter, window, 1)
    ev_claimed(k_pending, out)
    return out[1]
  end
end
