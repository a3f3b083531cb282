-- @script stream_order_admit
-- @purpose [TS] Admit entries a consumer of an ordered group holds (bus.md §7, ordered
-- consumption): each is registered under its key (see lib/order.lua) and answered with the entry
-- it must wait for, the one before it of the same key still pending in the group, or nothing when
-- it is the head of its key and may run now. Registration follows stream order whoever read the
-- entries: given `last` (the id of the newest entry of a read), every entry between the group's
-- watermark and `last` is registered too, so a peer that read earlier entries and has not admitted
-- them yet cannot be overtaken. A registered entry no longer pending (acked or dead-lettered by a
-- consumer outside ordered mode, trimmed, redriven elsewhere) is dropped when met. An entry that
-- waits has its idle time reset, so peers do not claim what its holder keeps; one this consumer no
-- longer holds is answered as gone (asked only of entries given without `last`: those of a read were
-- handed to this consumer by the read just before).
-- @key stream     emq:{q}:stream:<stream>
-- @key order      emq:{q}:stream:<stream>:order
-- @arg group      the consumer group
-- @arg consumer   the consumer that holds the entries
-- @arg order_by   the field whose value orders the entries
-- @arg last       the newest id of the read the entries come from; '' to register only the entries given
-- @args pairs     xid, key per entry
-- @include order
-- @returns per entry, in order: '' it may run; the xid it waits for; '-' this consumer no longer holds it
local stream = k_stream
local order = k_order
local group, consumer, by, last = a_group, a_consumer, a_order_by, a_last
if last ~= '' then
  local mark = redis.call('ZRANGEBYLEX', order, '[' .. group .. '\1', '(' .. group .. '\2', 'LIMIT', 0, 1)[1]
  local lastPadded = order_pad(last)
  if mark then
    local seen = string.sub(mark, #group + 2)
    if lastPadded > seen then
      local gap = redis.call('XRANGE', stream, '(' .. order_unpad(seen), last, 'COUNT', 10000)
      for _, e in ipairs(gap) do
        local f = e[2]
        for j = 1, #f, 2 do
          if f[j] == by then
            redis.call('ZADD', order, 'NX', 0, order_prefix(group, f[j + 1]) .. order_pad(e[1]))
            break
          end
        end
      end
      redis.call('ZREM', order, mark)
      redis.call('ZADD', order, 0, group .. '\1' .. lastPadded)
    end
  else
    redis.call('ZADD', order, 0, group .. '\1' .. lastPadded)
  end
end
local out = {}
for i = 5, #ARGV, 2 do
  local xid, k = ARGV[i], ARGV[i + 1]
  -- Entries of a read were handed to this consumer in the call just before: only a claim's need a look.
  local row = last ~= '' or redis.call('XPENDING', stream, group, xid, xid, 1)[1]
  if not row or (row ~= true and row[2] ~= consumer) then
    out[#out + 1] = '-'
  else
    local pre = order_prefix(group, k)
    local member = pre .. order_pad(xid)
    redis.call('ZADD', order, 'NX', 0, member)
    local before = ''
    while true do
      local prev = redis.call('ZREVRANGEBYLEX', order, '(' .. member, '[' .. pre, 'LIMIT', 0, 1)[1]
      if not prev then break end
      local pxid = order_unpad(string.sub(prev, #pre + 1))
      if redis.call('XPENDING', stream, group, pxid, pxid, 1)[1] then
        before = pxid
        break
      end
      redis.call('ZREM', order, prev)
    end
    if before ~= '' then redis.call('XCLAIM', stream, group, consumer, 0, xid, 'JUSTID') end
    out[#out + 1] = before
  end
end
return out
