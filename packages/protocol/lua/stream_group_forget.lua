-- @script stream_group_forget
-- @purpose [TS] Forget what a stream keeps beside the log for one consumer group (bus.md §7). With
-- no position, once the group itself is destroyed: its paused flag and its entries and watermark in
-- the order registry (see lib/order.lua), so a group created again under the name starts clean.
-- With a position, after the group was moved there (XGROUP SETID): an ordered group's registration
-- watermark is set to it, so entries delivered again are registered in stream order again; a group
-- without a watermark (not ordered) is left without one.
-- @key order      emq:{q}:stream:<stream>:order
-- @key paused     emq:{q}:stream:<stream>:paused
-- @arg group      the consumer group
-- @arg position   '' to forget the group; else its new last-delivered id
-- @include order
-- @returns the number of registry members removed
local order = k_order
local paused = k_paused
local group, position = a_group, a_position
if position == '' then
  redis.call('HDEL', paused, group)
  return redis.call('ZREMRANGEBYLEX', order, '[' .. group .. '\0', '(' .. group .. '\2')
end
local removed = redis.call('ZREMRANGEBYLEX', order, '[' .. group .. '\1', '(' .. group .. '\2')
if removed > 0 then redis.call('ZADD', order, 0, group .. '\1' .. order_pad(position)) end
return removed
