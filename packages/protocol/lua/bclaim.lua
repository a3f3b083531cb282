-- @script bclaim
-- @purpose Lease up to `size` of the oldest pending jobs in one step, all under one deadline
-- (queue.md §7). Each member gets its own token and is settled on its own.
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
-- @arg size       most jobs to claim (>= 1)
-- @args extras     [TS] optional: the marker TTL in ms (0 for none): writes each member's
-- job:<id>:lock in the same step; then the claim ticket (lib lease), for claim_recover
-- @argtail   marker_ms ticket
-- @include core history events retain expire lease gate
-- @returns a list of {id, payload, attempts, parent, parent_queue, parent_policy, name,
-- max_attempts, backoff, timeout_ms, traceparent, tracestate} ([TS] the last six, false when
-- absent) in mint order;
-- its length is min(size, depth), or empty when paused. [TS] Publishes `active` per job and
-- `drained` when the claim emptied pending, when meta `events` = all
local room, _, window = gate_room(k_meta, k_active, k_limiter, tonumber(a_size))
ev_open(k_events, k_journal, k_meta)
expire_open(k_expired, k_meta, k_deroot)
if room < 1 then return {} end
local marker = tonumber(a_marker_ms or '0') or 0
lease_ticket_set(a_ticket)
local out = lease_pop(k_active, k_jobroot, k_pending, room, tonumber(a_lease_ms), marker)
gate_count(k_limiter, window, #out)
hist_claimed(k_jobroot, out)
ev_claimed(k_pending, out)
return out
