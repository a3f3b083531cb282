-- @script flow_reemit
-- @purpose [TS] The host re-emit of queue.md §11.7 in one step: when a node died through a
-- fail-parent arm and has a parent of its own, push a fail-entry for that parent into the node's own
-- queue outbox, delivered by the next sweep. Reading the row and pushing in one script leaves no gap
-- for a reprocess to slip into, and the client writes no protocol key itself.
-- @key row        emq:{q}:job:<id>
-- @key outbox     emq:{q}:flow:outbox
-- @arg id         the node's id
-- @arg queue      the node's own queue name: the parent's queue when the row names none
-- @arg error      the failure text carried up
-- @returns 1 pushed; 0 the node is not dead or has no parent (nothing written)
local f = redis.call('HMGET', k_row, 'state', 'parent', 'parent_queue', 'parent_policy')
if f[1] ~= 'dead' or not f[2] or f[2] == '' then return 0 end
local pq = f[3]
if not pq or pq == '' then pq = a_queue end
local policy = 'fp'
if f[4] == 'id' or f[4] == 'cp' then policy = f[4] end
redis.call('RPUSH', k_outbox, '\0fail\0' .. pq .. '\0' .. f[2] .. '\0' .. a_id .. '\0' .. policy .. '\0' .. a_error)
return 1
