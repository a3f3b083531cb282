-- @script hold_parent
-- @purpose Land a flow node that waits for its children (queue.md §11.5, §11.7): held outside every
-- set with its own direct-child count, linked to its own parent when it is a nested node. [TS] The
-- row carries `flow = parent` (see enqueue_flow). [TS] It joins the index of waiting parents
-- (KEYS[3]).
-- @key parent     emq:{q}:job:<pid>
-- @key deps       emq:{q}:job:<pid>:dependencies
-- @key waiting    emq:{q}:waiting-children [TS]
-- @keys dedup     optional emq:{q}:de:<did> [TS]: the node's business key (its option pairs then carry
-- `dedup` and `dedup_keep`, so the scripts that end it release the key as enqueue's)
-- @arg pid        the node's id; must be JOB-namespaced
-- @arg payload    the node's payload
-- @arg n          its direct-child count (>= 1)
-- @arg link_parent  the node's own parent id, or "" for a root
-- @arg link_queue   the parent's queue when it differs from this one, else ""
-- @arg link_policy  "fp" | "id" toward that parent, or ""
-- @args fields   [TS] per-job option pairs written into the row with it, as enqueue's (priority
-- scores its pending entry -priority when its children release it); the spec fields are written
-- after them and win
-- @include admit
-- @returns 1 held; 0 duplicate (the row exists, or [TS] the business key names a job; nothing written)
-- @error EMQKIND job id must be JOB-namespaced
local link = a_link_parent
if string.sub(a_pid, 1, 3) ~= 'JOB' or (link ~= '' and string.sub(link, 1, 3) ~= 'JOB') then
  return redis.error_reply('EMQKIND job id must be JOB-namespaced')
end
if redis.call('EXISTS', k_parent) == 1 then return 0 end
if k_dedup then
  if redis.call('EXISTS', k_dedup) == 1 then return 0 end
  redis.call('SET', k_dedup, a_pid)
end
admit_row(k_parent, 'awaiting_children', a_payload, { unpack(ARGV, 7) }, { 'flow', 'parent' })
if link ~= '' then
  redis.call('HSET', k_parent, 'parent', link)
  if a_link_queue ~= '' then redis.call('HSET', k_parent, 'parent_queue', a_link_queue) end
  if a_link_policy ~= '' then redis.call('HSET', k_parent, 'parent_policy', a_link_policy) end
end
redis.call('SET', k_deps, a_n)
redis.call('SADD', k_waiting, a_pid)
return 1
