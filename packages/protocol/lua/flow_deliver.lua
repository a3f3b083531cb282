-- @script flow_deliver
-- @purpose Apply one child's completion to its parent, on the parent's slot (queue.md §11.5): record
-- the result once, count the child down once, and release the parent at zero. Redelivery is a no-op.
-- @key deps       emq:{qp}:job:<pid>:dependencies
-- @key processed  emq:{qp}:job:<pid>:processed
-- @key parent     emq:{qp}:job:<pid>
-- @key pending    emq:{qp}:pending
-- @arg cid        the child's id
-- @arg result     the child's result (its own id when it gave none)
-- @arg pid        the parent's id
-- @returns 1 applied; 0 duplicate, or the parent row is gone (nothing written; the entry is spent)
if redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then return 0 end
-- The state guard keeps a parent that a fail-parent sibling killed from being brought back.
if redis.call('DECR', KEYS[1]) <= 0 and redis.call('HGET', KEYS[3], 'state') == 'awaiting_children' then
  redis.call('ZADD', KEYS[4], 0, ARGV[3])
  redis.call('HSET', KEYS[3], 'state', 'pending')
end
return 1
