-- @script stream_claim
-- @purpose [TS] Hand a group consumer entries that were delivered before, with their delivery
-- counts, in one step (bus.md §7.2): either its own pending entries from a cursor (mode `self`, the
-- recovery at start) or entries idle for at least min_idle whoever holds them (mode `idle`,
-- XAUTOCLAIM). Both bump the delivery count. An entry past max_deliveries is moved to the
-- dead-letter stream and acked instead of being handed over; one deleted from the stream is acked.
-- @key stream     emq:{q}:stream:<stream>
-- @key dead       emq:{q}:stream:<stream>:dead
-- @arg group      the consumer group
-- @arg consumer   the consumer that takes the entries
-- @arg mode       `self` or `idle`
-- @arg cursor     where the walk resumes: `0-0` to start
-- @arg count      at most this many entries
-- @arg min_idle   ms an entry must have been idle (mode `idle`; ignored for `self`)
-- @arg max_deliveries  0: no limit; else an entry delivered more often than this is dead-lettered
-- @include streams
-- @returns {next_cursor, {xid, attempts, {field, value, ...}, ...}, dead_lettered}; next_cursor is
-- `0-0` once the walk has reached the end; the server's own NOGROUP error when the group does not
-- exist (a server reply, not a class of this script)
local stream = k_stream
local dead = k_dead
local group, consumer, mode, cursor = a_group, a_consumer, a_mode, a_cursor
local count, max = tonumber(a_count), tonumber(a_max_deliveries)
local claimed, nextCursor
if mode == 'self' then
  -- Own entries after the cursor; XCLAIM to self bumps the count as a re-read would.
  local start = cursor == '0-0' and '-' or '(' .. cursor
  local rows = redis.call('XPENDING', stream, group, start, '+', count, consumer)
  if #rows == 0 then return { '0-0', {}, 0 } end
  local ids = {}
  for i, row in ipairs(rows) do ids[i] = row[1] end
  claimed = redis.call('XCLAIM', stream, group, consumer, 0, unpack(ids))
  nextCursor = ids[#ids]
  -- XCLAIM leaves out (and drops from the pending list) entries deleted from the stream.
  local present = {}
  for _, entry in ipairs(claimed) do present[entry[1]] = true end
  for _, id in ipairs(ids) do
    if not present[id] then redis.call('XACK', stream, group, id) end
  end
else
  local reply = redis.call('XAUTOCLAIM', stream, group, consumer, a_min_idle, cursor, 'COUNT', count)
  nextCursor, claimed = reply[1], reply[2]
end
local out, deadCount = {}, 0
for _, entry in ipairs(claimed) do
  local xid, fields = entry[1], entry[2]
  if not fields then
    redis.call('XACK', stream, group, xid)
  else
    local row = redis.call('XPENDING', stream, group, xid, xid, 1)[1]
    local attempts = row and row[4] or 1
    if max > 0 and attempts > max then
      dead_letter(stream, dead, group, consumer, xid, attempts, 'max deliveries exceeded')
      deadCount = deadCount + 1
    else
      out[#out + 1] = { xid, attempts, fields }
    end
  end
end
return { nextCursor, out, deadCount }
