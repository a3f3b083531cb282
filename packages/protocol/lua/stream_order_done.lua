-- @script stream_order_done
-- @purpose [TS] Settle entries of an ordered group (bus.md §7, ordered consumption): each is acked
-- and leaves the order registry in the same step, so the next entry of its key becomes the head
-- the moment this one is done. An entry without a key (its order field missing) is only acked.
-- @key stream     emq:{q}:stream:<stream>
-- @key order      emq:{q}:stream:<stream>:order
-- @arg group      the consumer group
-- @args pairs     xid, key per entry ('' for an entry without a key)
-- @include order
-- @returns the number of entries acked by this call
local stream = k_stream
local order = k_order
local group = a_group
local acked = 0
for i = 2, #ARGV, 2 do
  local xid, k = ARGV[i], ARGV[i + 1]
  acked = acked + redis.call('XACK', stream, group, xid)
  if k ~= '' then redis.call('ZREM', order, order_prefix(group, k) .. order_pad(xid)) end
end
return acked
