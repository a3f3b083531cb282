-- @lib order
-- @purpose [TS] The per-key order registry of a stream's consumer groups (bus.md §7, ordered
-- consumption): one sorted set per stream, every member at score 0 and read by lex range. An entry
-- of group g whose order field holds k is `g \0 <#k>:k \0 <padded xid>`; the length prefix keeps a
-- key that holds `\0` from reading as another key's prefix, and the padding makes lex order the
-- stream order. Group g's registration watermark (the highest id registered) is `g \1 <padded xid>`.
-- Needs no other library.

-- order_pad(xid): the xid with both parts zero-padded to 20 digits, so lex order = stream order.
local function order_pad(xid)
  local ms, seq = string.match(xid, '^(%d+)-(%d+)$')
  return string.rep('0', 20 - #ms) .. ms .. '-' .. string.rep('0', 20 - #seq) .. seq
end

-- order_unpad(padded): the xid a padded member tail stands for.
local function order_unpad(padded)
  local ms, seq = string.match(padded, '^0*(%d+)-0*(%d+)$')
  return ms .. '-' .. seq
end

-- order_prefix(group, k): the members of group's entries keyed k start with this.
local function order_prefix(group, k)
  return group .. '\0' .. #k .. ':' .. k .. '\0'
end
