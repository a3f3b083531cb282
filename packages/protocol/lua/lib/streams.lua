-- @lib streams
-- @purpose [TS] The dead-letter move of a stream log's consumer groups (bus.md §7): an entry that has
-- used up its deliveries is copied, with where it came from and why, to the stream's dead-letter
-- stream and acked for its group, in the same step. Needs no other library.

-- dead_letter(stream, dead, group, consumer, xid, attempts, reason): copies entry `xid` of `stream`
-- to `dead` (server-minted id: the dead-letter stream is not an EVT log), then XACKs it for `group`.
-- The record is `id <EVT> xid <xid> group <g> consumer <c> reason <text> attempts <n>` followed by
-- the entry's own fields, so a reader splits it by position, never by name. An entry trimmed away
-- meanwhile is only acked. Answers 1 when a record was written, else 0.
local function dead_letter(stream, dead, group, consumer, xid, attempts, reason)
  local found = redis.call('XRANGE', stream, xid, xid)[1]
  local moved = 0
  if found then
    local fields = found[2]
    local id, skip = '', -1
    for i = 1, #fields, 2 do
      if fields[i] == 'id' then
        id, skip = fields[i + 1], i
        break
      end
    end
    local out = { 'id', id, 'xid', xid, 'group', group, 'consumer', consumer, 'reason', reason, 'attempts', tostring(attempts) }
    for i = 1, #fields, 2 do
      if i ~= skip then
        out[#out + 1] = fields[i]
        out[#out + 1] = fields[i + 1]
      end
    end
    redis.call('XADD', dead, '*', unpack(out))
    moved = 1
  end
  redis.call('XACK', stream, group, xid)
  return moved
end
