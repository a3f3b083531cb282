-- @script enqueue_flow
-- @purpose Land a flat same-queue flow in one atomic step: every child pending and linked to its
-- parent, the parent held with its open-child count (queue.md §11.3). [TS] The parent row carries
-- `flow = parent`, so the script that deletes it at completion knows to take :processed and
-- :dependencies along without probing for them. [TS] The parent joins the index of waiting parents
-- (KEYS[4]).
-- @key parent     emq:{q}:job:<pid>
-- @key deps       emq:{q}:job:<pid>:dependencies
-- @key pending    emq:{q}:pending
-- @key waiting    emq:{q}:waiting-children [TS]
-- @key events     emq:{q}:events [TS] (a channel, declared so no name is built): lib events
-- @key meta       emq:{q}:meta [TS]: the queue's event settings (lib events)
-- @key journal    emq:{q}:journal [TS]: the events journal, written when meta `journal` is set
-- @key wake       emq:{q}:wake [TS]: one token wakes a parked consumer for the landed children, as
-- enqueue_many's does
-- @keys children  emq:{q}:job:<cid> for each child, in ARGV order
-- @arg pid        the parent's id; must be JOB-namespaced
-- @arg ppayload   the parent's payload
-- @arg n          the number of children (>= 1)
-- @args children  cid, cpayload, cpolicy ("fp" | "id" | [TS] "cp") for each child, in order
-- @include events
-- @returns N landed ([TS] each child publishes `waiting` when meta `events` = all); 0 duplicate (the parent or a child row exists; nothing written)
-- @error EMQKIND job id must be JOB-namespaced
local n = tonumber(a_n)
-- The namespace law runs over every id first, so a refused flow writes nothing at all.
if string.sub(a_pid, 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
for i = 1, n do
  if string.sub(ARGV[1 + 3 * i], 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
end
if redis.call('EXISTS', k_parent) == 1 then return 0 end
-- A child id that already names a row is a collision; overwriting it would reset its token (I7).
for i = 1, n do
  if redis.call('EXISTS', KEYS[8 + i]) == 1 then return 0 end
end
local pid = a_pid
for i = 1, n do
  local cid = ARGV[1 + 3 * i]
  redis.call('HSET', KEYS[8 + i], 'state', 'pending', 'attempts', '0', 'payload', ARGV[2 + 3 * i],
    'parent', pid, 'parent_policy', ARGV[3 + 3 * i])
  redis.call('ZADD', k_pending, 0, cid)
end
redis.call('HSET', k_parent, 'state', 'awaiting_children', 'attempts', '0', 'payload', a_ppayload, 'flow', 'parent')
redis.call('SET', k_deps, n)
redis.call('SADD', k_waiting, pid)
redis.call('LPUSH', k_wake, '1')
redis.call('LTRIM', k_wake, 0, 63)
ev_open(k_events, k_journal, k_meta)
if ev_chatty_on() then
  for i = 1, n do ev_emit('waiting', ARGV[1 + 3 * i]) end
end
return n
