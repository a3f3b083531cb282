-- @script enqueue_flow_child
-- @purpose Land one flow leaf in its own queue, pending and linked to a parent that may run elsewhere
-- (queue.md §11.5, §11.7).
-- @key row        emq:{qc}:job:<cid>
-- @key pending    emq:{qc}:pending
-- @arg cid        the child's id; must be JOB-namespaced
-- @arg payload    the child's payload
-- @arg pid        the parent's id
-- @arg pqueue     the parent's queue when it differs from this one, else ""
-- @arg policy     "fp" | "id" | [TS] "cp"
-- @returns 1 enqueued; 0 duplicate (the row exists; nothing written)
-- @error EMQKIND job id must be JOB-namespaced
if string.sub(a_cid, 1, 3) ~= 'JOB' or string.sub(a_pid, 1, 3) ~= 'JOB' then
  return redis.error_reply('EMQKIND job id must be JOB-namespaced')
end
if redis.call('EXISTS', k_row) == 1 then return 0 end
redis.call('HSET', k_row, 'state', 'pending', 'attempts', '0', 'payload', a_payload, 'parent', a_pid,
  'parent_policy', a_policy)
if a_pqueue ~= '' then redis.call('HSET', k_row, 'parent_queue', a_pqueue) end
redis.call('ZADD', k_pending, 0, a_cid)
return 1
