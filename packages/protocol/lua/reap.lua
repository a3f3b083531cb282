-- @script reap
-- @purpose Crash recovery: every lease past its deadline goes back to its lane or to pending with
-- attempts kept, so the next claim mints the next token and the old holder is fenced out
-- (queue.md §6.1).
-- @key active     emq:{q}:active
-- @key pending    emq:{q}:pending
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key jobroot    emq:{q}:job:
-- @key laneroot   emq:{q}:g:
-- @arg limit      most leases to recover (default 100)
-- @include core lanes
-- @returns the number of jobs recovered
local releasing = true -- an expired lease gives its lane slot back
return requeue_due(KEYS[1], KEYS[2], lb_at(3), KEYS[8], KEYS[9], tonumber(ARGV[1]), releasing)
