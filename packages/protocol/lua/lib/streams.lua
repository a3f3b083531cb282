-- @lib streams
-- @purpose [TS] The record layouts of a stream log's consumer groups (bus.md §2, §7), read and
-- written in one place: an entry's fields (`record_field`), the max-deliveries rule (`spent`), and
-- the dead-letter record (`dead_letter` writes it, `dead_record` reads it back). Needs no other
-- library.

-- record_field(fields, name): the value of field `name` in an entry's flat `field value ...` list
-- and its position (the index of the name), or nil when the entry has no such field.
local function record_field(fields, name)
  for i = 1, #fields, 2 do
    if fields[i] == name then return fields[i + 1], i end
  end
  return nil
end

-- spent(deliveries, max): true when delivery number `deliveries` is past the group's allowance,
-- `max` (0: no limit). A claim asks it of the delivery it just counted; a settlement asks it of the
-- redelivery a retry would need, so a retry on the last allowed delivery is dead-lettered at once.
local function spent(deliveries, max)
  return max > 0 and deliveries > max
end

-- The fixed head of a dead-letter record, in order: `id <EVT> xid <xid> group <g> consumer <c>
-- reason <text> attempts <n>`, then the entry's own fields. Readers split it by position.
local DEAD_HEAD = { 'id', 'xid', 'group', 'consumer', 'reason', 'attempts' }

-- dead_record(fields): the head of a dead-letter record as a table keyed by DEAD_HEAD's names, or
-- nil when `fields` does not start with that head.
local function dead_record(fields)
  local head = {}
  for i, name in ipairs(DEAD_HEAD) do
    if fields[2 * i - 1] ~= name then return nil end
    head[name] = fields[2 * i]
  end
  return head
end

-- dead_letter(stream, dead, group, consumer, xid, attempts, reason): copies entry `xid` of `stream`
-- to `dead` (server-minted id: the dead-letter stream is not an EVT log) as a dead-letter record,
-- then XACKs it for `group`. An entry trimmed away meanwhile is only acked. Answers 1 when a record
-- was written, else 0.
local function dead_letter(stream, dead, group, consumer, xid, attempts, reason)
  local found = redis.call('XRANGE', stream, xid, xid)[1]
  local moved = 0
  if found then
    local fields = found[2]
    local id, skip = record_field(fields, 'id')
    local head = { id = id or '', xid = xid, group = group, consumer = consumer, reason = reason, attempts = tostring(attempts) }
    local out = {}
    for _, name in ipairs(DEAD_HEAD) do
      out[#out + 1] = name
      out[#out + 1] = head[name]
    end
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
