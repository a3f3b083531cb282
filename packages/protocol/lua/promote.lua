-- @script promote
-- @purpose Release due scheduled jobs: each goes to its lane (re-ringing it) or to flat pending
-- (queue.md §8.2). Rows that vanished are dropped, never recreated.
-- @key schedule   emq:{q}:schedule
-- @key pending    emq:{q}:pending
-- @key gactive    emq:{q}:gactive
-- @key glimit     emq:{q}:glimit
-- @key ring       emq:{q}:ring
-- @key wake       emq:{q}:wake
-- @key paused     emq:{q}:paused
-- @key jobroot    emq:{q}:job:
-- @key laneroot   emq:{q}:g:
-- @arg limit      most ids to move
-- @include core lanes
-- @returns the number of jobs moved
local releasing = false -- a scheduled job held no lease, so no lane slot goes back
return requeue_due(KEYS[1], KEYS[2], lb_at(3), KEYS[8], KEYS[9], tonumber(ARGV[1]), releasing)
