-- @script state_lookup
-- @purpose Report where a job sits, checking the sets in the order of protocol.md §5.3; a grouped
-- pending job is found through its lane [TS]. [TS] A completed row kept by retention reports
-- `completed`.
-- @key pending    emq:{q}:pending
-- @key active     emq:{q}:active
-- @key schedule   emq:{q}:schedule
-- @key dead       emq:{q}:dead
-- @key row        emq:{q}:job:<id>
-- @key laneroot   emq:{q}:g:
-- @arg id         the job's id
-- @include core
-- @returns pending | active | scheduled | dead | awaiting_children | completed | [TS] expired | unknown | absent
local id = a_id
if redis.call('ZSCORE', k_pending, id) then return 'pending' end
local g = redis.call('HGET', k_row, 'group')
if g and vid(g) and redis.call('ZSCORE', gkey(k_laneroot, g), id) then return 'pending' end
if redis.call('ZSCORE', k_active, id) then return 'active' end
if redis.call('ZSCORE', k_schedule, id) then return 'scheduled' end
if redis.call('ZSCORE', k_dead, id) then return 'dead' end
local state = redis.call('HGET', k_row, 'state')
if not state then return 'absent' end
if state == 'awaiting_children' then return 'awaiting_children' end
if state == 'completed' then return 'completed' end
-- [TS] A job a claim met past its deadline (lib expire).
if state == 'expired' then return 'expired' end
return 'unknown'
