-- @script flow_rejoin
-- @purpose [TS] A child that settled for its parent runs again (a retried dead or completed child,
-- BullMQ's reprocessJob): on the parent's slot, its recorded outcome (result, ignored failure or
-- fatal failure) is taken back and it counts as open again, so its next settlement applies once
-- more (flow_deliver and flow_fail_deliver apply a child once). The parent's state is left as it
-- is, as BullMQ's does: a held parent waits for it too; a released or running one runs on. A
-- finished parent (completed or dead) is left untouched: nothing would ever count it down again.
-- @key deps       emq:{qp}:job:<pid>:dependencies
-- @key processed  emq:{qp}:job:<pid>:processed
-- @key failed     emq:{qp}:job:<pid>:failed
-- @key unsuccessful  emq:{qp}:job:<pid>:unsuccessful
-- @key parent     emq:{qp}:job:<pid>
-- @arg cid        the child's id
-- @arg pid        the parent's id
-- @returns 1 the child is open again; 0 the parent is gone or finished, or it held no outcome of
-- the child (nothing written)
local state = redis.call('HGET', k_parent, 'state')
if not state or state == 'completed' or state == 'dead' then return 0 end
local taken = redis.call('HDEL', k_processed, a_cid) + redis.call('HDEL', k_unsuccessful, a_cid) + redis.call('HDEL', k_failed, a_cid)
if taken == 0 then return 0 end
redis.call('INCR', k_deps)
return 1
