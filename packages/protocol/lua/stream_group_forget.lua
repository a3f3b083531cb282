-- @script stream_group_forget
-- @purpose [TS] Forget what a stream keeps beside the log for one consumer group, once the group
-- itself is destroyed (bus.md §7): its paused flag and its entries and watermark in the order
-- registry (see lib/order.lua), so a group created again under the name starts clean.
-- @key order      emq:{q}:stream:<stream>:order
-- @key paused     emq:{q}:stream:<stream>:paused
-- @arg group      the consumer group
-- @returns the number of registry members removed
local order = KEYS[1]
local paused = KEYS[2]
local group = ARGV[1]
redis.call('HDEL', paused, group)
return redis.call('ZREMRANGEBYLEX', order, '[' .. group .. '\0', '(' .. group .. '\2')
