-- @script adopt_children
-- @purpose [TS] Children join a parent that already exists, from outside it (BullMQ's `parent` job
-- option): the parent's open-child count grows by every child it takes, and its same-queue leaf
-- children land pending and linked to it in the same step. Children elsewhere (or with children of
-- their own) land after, through enqueue_flow_child / hold_parent; the count they add is counted
-- here first, so a child that finishes early can never release the parent too soon. A negative
-- `remote` (with no local children) takes back what did not land, and releases a parent that waits
-- on nothing more. The parent's state is left as it is: a held parent goes on waiting, a pending or
-- active one runs (a step job waits by moving itself with wait_children). A finished parent is
-- refused: no fan-in would ever reach it. Its row is marked `flow = parent` (see enqueue_flow).
-- @key row        emq:{q}:job:<pid>
-- @key deps       emq:{q}:job:<pid>:dependencies
-- @key pending    emq:{q}:pending
-- @key waiting    emq:{q}:waiting-children
-- @key events     emq:{q}:events (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @keys children  emq:{q}:job:<cid> for each local child, in ARGV order
-- @arg pid        the parent's id; must be JOB-namespaced
-- @arg remote     how many children land elsewhere (may be negative to take back a count)
-- @args children  cid, cpayload, cpolicy ("fp" | "id" | "cp") for each local child, in order
-- @include core events lanes fanin fanout
-- @returns the open-child count after the call (each local child, and a parent a take-back
-- released, publishes `waiting` when meta `events` = all); -1 a local child's row exists (nothing
-- written)
-- @error EMQKIND job id must be JOB-namespaced
-- @error EMQSTATE parent missing
-- @error EMQSTATE parent finished
local pid = a_pid
if string.sub(pid, 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
local n = (#ARGV - 2) / 3
for i = 1, n do
  if string.sub(ARGV[3 * i], 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
end
local state = redis.call('HGET', k_row, 'state')
if not state then return redis.error_reply('EMQSTATE parent missing') end
if state == 'completed' or state == 'dead' then return redis.error_reply('EMQSTATE parent finished') end
if leaves_taken(7, n) then return -1 end
redis.call('HSET', k_row, 'flow', 'parent')
ev_open(k_events, k_journal, k_meta)
land_leaves(7, 3, n, k_pending, pid)
local remote = tonumber(a_remote)
local open
if remote < 0 then
  open = count_down(k_deps, k_row, k_pending, k_waiting, pid, -remote)
else
  open = redis.call('INCRBY', k_deps, n + remote)
end
for _, p in ipairs(FANIN_RELEASED) do ev_chatty('waiting', p) end
return open
