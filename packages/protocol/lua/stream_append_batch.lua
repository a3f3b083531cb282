-- @script stream_append_batch
-- @purpose [TS] Append a batch of records to a stream log in one step (bus.md §2.2). The entries are
-- exactly those of the spec's pipelined form, one `XADD stream <xid> id <EVT id> <fields…> <extra…>`
-- per record, in order, each at the explicit id the writer minted; readers cannot tell the two forms
-- apart, and a runtime that pipelines the XADDs writes the same stream. One script instead of one
-- command per record is what takes the client's per-command cost off the batch. As with pipelined
-- members, a record whose XADD the server refuses (a non-monotonic id, a key of another type) is
-- reported by its place and the records after it still go; nothing is retried with `*`. The layout
-- is checked whole before the first XADD, so a malformed call (a bug, not a refusal: the builder
-- never sends one) writes nothing and answers a plain `ERR`.
-- @key stream     emq:{q}:stream:<stream>
-- @arg extra      how many items every record carries after its own fields (one producer's trace
--                 context, sent once at the end), an even number >= 0
-- @args records   per record: xid, EVT id, item count n (even), then its n field/value items; then
--                 the `extra` trailing items
-- @returns {} when every record landed; else, per refused record in order, its 1-based place in the
-- batch and the server's error message
local stream = k_stream
local e = tonumber(a_extra)
local last = #ARGV - (e or 0)
if not e or e < 0 or e % 2 ~= 0 or last < 2 then return redis.error_reply('ERR stream_append_batch: malformed batch layout') end
-- Walked once before any write: a count that does not fit refuses the whole call.
local i = 2
while i <= last do
  local n = tonumber(ARGV[i + 2])
  if not n or n < 0 or n % 2 ~= 0 or i + 2 + n > last then return redis.error_reply('ERR stream_append_batch: malformed batch layout') end
  i = i + 3 + n
end
local tail = {}
for j = 1, e do tail[j] = ARGV[last + j] end
local out = {}
local at = 0
i = 2
while i <= last do
  local xid, id, n = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  at = at + 1
  local added
  if e == 0 then
    -- The common case: the fields straight from ARGV, no table per record.
    added = redis.pcall('XADD', stream, xid, 'id', id, unpack(ARGV, i + 3, i + 2 + n))
  else
    local items = { unpack(ARGV, i + 3, i + 2 + n) }
    for j = 1, e do items[n + j] = tail[j] end
    added = redis.pcall('XADD', stream, xid, 'id', id, unpack(items))
  end
  if type(added) == 'table' and added.err then
    out[#out + 1] = at
    out[#out + 1] = added.err
  end
  i = i + 3 + n
end
return out
