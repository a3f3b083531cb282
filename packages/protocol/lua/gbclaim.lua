-- @script gbclaim
-- @purpose Rotate the ring one step and lease every job of the lane that came up, up to its ceiling,
-- all under one deadline, so the batch is homogeneous (queue.md §7). A paused queue claims nothing.
-- @key ring       emq:{q}:ring
-- @key active     emq:{q}:active
-- @key meta       emq:{q}:meta
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key jobroot    emq:{q}:job:
-- @key laneroot   emq:{q}:g:
-- @key limiter    emq:{q}:limiter [TS]: the rate window's counter (see lib gate)
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @arg lease_ms   lease length in ms, from server now
-- @args marker     optional marker TTL in ms [TS]: writes each claimed job's job:<id>:lock in the same step
-- @include core events lease gate lane-claim
-- @returns a list of {id, payload, attempts, g, name, max_attempts, backoff, timeout_ms} ([TS] the
-- last four, false when absent), oldest first, all from one lane; empty when nothing is
-- claimable. [TS] Publishes `active` per claimed job when meta `events` = all (no
-- `drained`: a lane claim does not see the whole queue)
local marker = tonumber(ARGV[2] or '0') or 0
local out = lane_claim(nil, tonumber(ARGV[1]), marker, KEYS[8])
ev_open(KEYS[9], KEYS[10], KEYS[3])
ev_active(out)
return out
