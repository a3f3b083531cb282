-- @script enqueue_flow_child
-- @purpose Land one flow leaf in its own queue, pending and linked to a parent that may run elsewhere
-- (queue.md §11.5, §11.7). [TS] It may carry per-job options, and wait out a delay in the schedule
-- first (BullMQ's per-node job options in a flow).
-- @key row        emq:{qc}:job:<cid>
-- @key pending    emq:{qc}:pending
-- @key schedule   emq:{qc}:schedule [TS]: where a child with a delay waits until it is due
-- @key meta       emq:{qc}:meta [TS]: the queue's LIFO count (lib admit)
-- @key wake       emq:{qc}:wake [TS]: a pending child wakes one parked consumer of its queue; a delayed
-- one that became the schedule's head pushes a due hint, as enqueue and schedule do
-- @keys dedup     optional emq:{qc}:de:<did> [TS]: the child's business key (its option pairs then carry
-- `dedup` and `dedup_keep`, so the scripts that end it release the key as enqueue's)
-- @arg cid        the child's id; must be JOB-namespaced
-- @arg payload    the child's payload
-- @arg pid        the parent's id
-- @arg pqueue     the parent's queue when it differs from this one, else ""
-- @arg policy     "fp" | "id" | [TS] "cp"
-- @arg delay_ms   [TS] ms from the server's now before the child may run; "0": pending at once
-- @args fields   [TS] per-job option pairs written into the row with it, as enqueue's (priority
-- scores the pending entry -priority, and is read when promote moves a delayed child to pending);
-- the spec fields are written after them and win
-- @include core admit
-- @returns 1 enqueued (pending, or [TS] scheduled with a delay); 0 duplicate (the row exists, or [TS]
-- the business key names a job; nothing written)
-- @error EMQKIND job id must be JOB-namespaced
if string.sub(a_cid, 1, 3) ~= 'JOB' or string.sub(a_pid, 1, 3) ~= 'JOB' then
  return redis.error_reply('EMQKIND job id must be JOB-namespaced')
end
if redis.call('EXISTS', k_row) == 1 then return 0 end
if k_dedup then
  if redis.call('EXISTS', k_dedup) == 1 then return 0 end
  redis.call('SET', k_dedup, a_cid)
end
local link = { 'parent', a_pid, 'parent_policy', a_policy }
if a_pqueue ~= '' then
  link[#link + 1] = 'parent_queue'
  link[#link + 1] = a_pqueue
end
local delay = tonumber(a_delay_ms) or 0
if delay > 0 then
  admit_row(k_row, 'scheduled', a_payload, { unpack(ARGV, 7) }, link)
  redis.call('ZADD', k_schedule, now_ms() + delay, a_cid)
  if redis.call('ZRANGE', k_schedule, 0, 0)[1] == a_cid then due_hint(k_wake, delay) end
else
  local score = admit_row(k_row, 'pending', a_payload, { unpack(ARGV, 7) }, link, k_meta)
  redis.call('ZADD', k_pending, score, a_cid)
  redis.call('LPUSH', k_wake, '1')
  redis.call('LTRIM', k_wake, 0, 63)
end
return 1
