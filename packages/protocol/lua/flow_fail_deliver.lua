-- @script flow_fail_deliver
-- @purpose Apply one child's death to its parent, on the parent's slot (queue.md §11.6): fail-parent
-- kills the parent; ignore-dependency records the failure and counts the child down. Each child's
-- failure applies once; redelivery is a no-op. [TS] A parent leaving `awaiting_children` leaves the
-- index of waiting parents; a released one keeps its priority score.
-- @key deps       emq:{qp}:job:<pid>:dependencies
-- @key failed     emq:{qp}:job:<pid>:failed
-- @key unsuccessful  emq:{qp}:job:<pid>:unsuccessful
-- @key parent     emq:{qp}:job:<pid>
-- @key pending    emq:{qp}:pending
-- @key dead       emq:{qp}:dead
-- @key waiting    emq:{qp}:waiting-children [TS]
-- @arg cid        the child's id
-- @arg error      the child's failure text
-- @arg policy     "fp" | "id" (anything else reads as fp)
-- @arg pid        the parent's id
-- @include core lanes fanin
-- @returns 0 duplicate, or the parent row is gone (nothing written); 1 applied; 2 applied and the
-- parent moved to dead
local cid, pid = ARGV[1], ARGV[4]
if redis.call('EXISTS', KEYS[4]) == 0 then return 0 end
if ARGV[3] == 'id' then
  if redis.call('HSETNX', KEYS[3], cid, ARGV[2]) == 0 then return 0 end
  count_down(KEYS[1], KEYS[4], KEYS[5], KEYS[7], pid, 1)
  return 1
end
if redis.call('HSETNX', KEYS[2], cid, ARGV[2]) == 0 then return 0 end
fail_parent_row(KEYS[4], KEYS[5], KEYS[6], KEYS[7], pid)
return 2
