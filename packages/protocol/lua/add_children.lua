-- @script add_children
-- @purpose [TS] A running job becomes a flow parent (BullMQ's children added from inside a job):
-- fenced on its token while it is active, its open-child count grows by every child it adds, and its
-- same-queue leaf children land pending and linked to it in the same step. Children elsewhere (or
-- with children of their own) land after, through enqueue_flow_child / hold_parent; the count they
-- add is counted here first, so a child that finishes early can never release the parent too soon.
-- A negative `remote` (with no local children) takes back what did not land. The job itself stays
-- active: it waits only when it moves itself with wait_children. Its row is marked `flow = parent`
-- (see enqueue_flow), so its completion takes :processed and :dependencies along with the row.
-- @key row        emq:{q}:job:<id>
-- @key active     emq:{q}:active
-- @key deps       emq:{q}:job:<id>:dependencies
-- @key pending    emq:{q}:pending
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @keys children  emq:{q}:job:<cid> for each local child, in ARGV order
-- @arg id         the running job's id; must be JOB-namespaced
-- @arg token      the attempts value the claim returned
-- @arg remote     how many children land elsewhere (may be negative to take back a count)
-- @args children  cid, cpayload, cpolicy ("fp" | "id" | [TS] "cp") for each local child, in order
-- @include core events fanout
-- @returns the open-child count after the call ([TS] each local child publishes `waiting` when meta
-- `events` = all); -1 a local child's row exists (nothing written)
-- @error EMQKIND job id must be JOB-namespaced
-- @error EMQSTALE job gone
-- @error EMQSTALE add_children token mismatch
-- @error EMQSTALE not active
local id = a_id
if string.sub(id, 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
local n = (#ARGV - 3) / 3
for i = 1, n do
  if string.sub(ARGV[1 + 3 * i], 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
end
local attempts = redis.call('HGET', k_row, 'attempts')
if not attempts then return redis.error_reply('EMQSTALE job gone') end
if attempts ~= a_token then return redis.error_reply('EMQSTALE add_children token mismatch') end
if not redis.call('ZSCORE', k_active, id) then return redis.error_reply('EMQSTALE not active') end
if leaves_taken(7, n) then return -1 end
redis.call('HSET', k_row, 'flow', 'parent')
if n > 0 then ev_open(k_events, k_journal, k_meta) end
land_leaves(7, 4, n, k_pending, id)
return redis.call('INCRBY', k_deps, n + tonumber(a_remote))
