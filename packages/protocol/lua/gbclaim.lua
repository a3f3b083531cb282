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
-- @key grate      emq:{q}:grate [TS]: the lanes' own rate limits; a lane out of budget is passed over
-- @arg lease_ms   lease length in ms, from server now
-- @args marker     optional marker TTL in ms [TS]: writes each claimed job's job:<id>:lock in the same step
-- (0: none); then [TS] optional size: the most jobs to lease (a batch worker's `size`); absent, the
-- whole claimable depth
-- @include core lease gate lane-claim
-- @returns a list of {id, payload, attempts, g, name, max_attempts, backoff, timeout_ms} ([TS] the
-- last four, false when absent), oldest first, all from one lane; empty when nothing is
-- claimable
local marker = tonumber(ARGV[2] or '0') or 0
local size = tonumber(ARGV[3] or '')
local cap = nil
if size and size >= 1 then cap = function() return size end end
return lane_claim(cap, tonumber(ARGV[1]), marker, KEYS[8], KEYS[9])
