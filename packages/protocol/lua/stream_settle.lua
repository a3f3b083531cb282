-- @script stream_settle
-- @purpose [TS] Settle what a group consumer's handlers said of its entries, in one step (bus.md
-- §7.2): an ack, a retry or a failure each. An ack is XACKed. A failure (a `deadLetter` verdict)
-- is moved to the dead-letter stream with its reason and attempts, and acked; so is a retry that
-- would need a delivery past max_deliveries (the rule `spent` of lib/streams.lua, which the claim
-- applies too). Any other retry stays pending: with a delay, its last delivery is re-dated
-- (XCLAIM … IDLE … JUSTID, which counts no delivery) so that it becomes claimable `delay` ms from
-- now, at most min_idle; without one, it comes back once idle for min_idle. An entry with an order
-- key (an ordered group) leaves the order registry as it is acked or dead-lettered, so the next
-- entry of its key is the head at once. An entry no longer pending is skipped by the server.
-- @key stream     emq:{q}:stream:<stream>
-- @key dead       emq:{q}:stream:<stream>:dead
-- @key order      emq:{q}:stream:<stream>:order
-- @arg group      the consumer group
-- @arg consumer   the consumer that settles the entries
-- @arg min_idle   ms an entry must sit idle before the group's consumers claim it
-- @arg max_deliveries  0: no limit; else the deliveries an entry may have
-- @args entries   six per entry: kind (`ack`, `retry` or `dead`), xid, order key ('' for none),
--                 attempts (its delivery count), delay ms ('' for none), reason ('' for an ack)
-- @include order streams
-- @returns {acked, dead_lettered, retried}: how many entries were acked, moved to the dead-letter
-- stream, and left pending for a retry
local stream = k_stream
local dead = k_dead
local order = k_order
local group, consumer = a_group, a_consumer
local minIdle, max = tonumber(a_min_idle), tonumber(a_max_deliveries)
local acked, deadCount, retried = 0, 0, 0
-- Retries re-dated together, by how long ago their delivery is dated: one XCLAIM per distinct delay.
local redate, idles = {}, {}
for i = 5, #ARGV, 6 do
  local kind, xid, k, attempts = ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3])
  local delay, reason = ARGV[i + 4], ARGV[i + 5]
  local done = true
  if kind == 'ack' then
    redis.call('XACK', stream, group, xid)
    acked = acked + 1
  elseif kind == 'dead' or spent(attempts + 1, max) then
    dead_letter(stream, dead, group, consumer, xid, attempts, reason)
    deadCount = deadCount + 1
  else
    done = false
    retried = retried + 1
    if delay ~= '' then
      local idle = minIdle - math.min(tonumber(delay), minIdle)
      if not redate[idle] then
        redate[idle] = {}
        idles[#idles + 1] = idle
      end
      local list = redate[idle]
      list[#list + 1] = xid
    end
  end
  if done and k ~= '' then redis.call('ZREM', order, order_prefix(group, k) .. order_pad(xid)) end
end
for _, idle in ipairs(idles) do
  local xids = redate[idle]
  -- Lua's unpack is bounded by its C stack; claim in slices well below it. The options follow the ids.
  for j = 1, #xids, 1000 do
    local tail = { unpack(xids, j, math.min(j + 999, #xids)) }
    tail[#tail + 1] = 'IDLE'
    tail[#tail + 1] = idle
    tail[#tail + 1] = 'JUSTID'
    redis.call('XCLAIM', stream, group, consumer, '0', unpack(tail))
  end
end
return { acked, deadCount, retried }
