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
-- @arg lease_ms   lease length in ms, from server now
-- @args marker     optional marker TTL in ms [TS]: writes each claimed job's job:<id>:lock in the same step
-- @include core lease gate lane-claim
-- @returns a list of {id, payload, attempts, g, name, max_attempts, backoff, timeout_ms,
-- traceparent, tracestate} ([TS] the last six, false when absent), oldest first, all from one lane; empty when nothing is
-- claimable
local marker = tonumber(ARGV[2] or '0') or 0
return lane_claim(nil, tonumber(ARGV[1]), marker, KEYS[8])
