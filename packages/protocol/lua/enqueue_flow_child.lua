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
if string.sub(ARGV[1], 1, 3) ~= 'JOB' or string.sub(ARGV[3], 1, 3) ~= 'JOB' then
  return redis.error_reply('EMQKIND job id must be JOB-namespaced')
end
if redis.call('EXISTS', k_row) == 1 then return 0 end
redis.call('HSET', k_row, 'state', 'pending', 'attempts', '0', 'payload', ARGV[2], 'parent', ARGV[3],
  'parent_policy', ARGV[5])
if ARGV[4] ~= '' then redis.call('HSET', k_row, 'parent_queue', ARGV[4]) end
redis.call('ZADD', k_pending, 0, ARGV[1])
return 1
