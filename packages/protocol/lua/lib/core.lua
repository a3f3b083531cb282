-- @lib core
-- @purpose Shared procedures every transition may include: the in-script id check (protocol.md §4.6),
-- the only two ways a script may build a key from a value (§6.1 rooted form) and the server clock (§11).
--
-- Everything above the `core: end of the pure part` line touches no server state. The strict twin
-- (src/scripts/strict.ts) opens its prelude with that part, cut from this very file: the prelude's
-- guard must run before any library does (each library call is routed through it), so it cannot
-- reach the definitions the script includes after it, and a copy of its own would be a second
-- definition of the id check and the key builders that could drift from this one.

-- emq_bytes_le(a, b): a <= b in byte order, not the server's collation: Redis sets LC_COLLATE from
-- its environment, so Lua's string comparison follows the locale, which is not byte order outside C.
local function emq_bytes_le(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a <= #b
end

-- The largest payload, 2^63 - 1 in base62, as bytes for vid's compare.
local EMQ_VID_MAX = { string.byte('AzL8n0Y58m7', 1, 11) }
-- [TS] Ids this call has already checked: a settle or claim checks one id many times (each key built
-- from it checks it again), and the check is pure, so a repeat is one table read. Fresh each call:
-- the script body runs as a new function call, so the table never outlives it.
local EMQ_VID_OK = {}

-- vid(s): true iff s is a 14-byte branded id whose payload is within the 63-bit range. The range
-- compare reads the payload's bytes in place (emq_bytes_le's order) instead of cutting a substring.
local function vid(s)
  if EMQ_VID_OK[s] then return true end
  if type(s) ~= 'string' or #s ~= 14 or not string.find(s, '^%u%u%u[0-9A-Za-z]+$') then return false end
  for i = 1, 11 do
    local x, y = string.byte(s, i + 3), EMQ_VID_MAX[i]
    if x ~= y then
      if x > y then return false end
      break
    end
  end
  EMQ_VID_OK[s] = true
  return true
end

-- The closed set of job sub-keys (protocol.md §6.1): a set for jkey's check ('' is the row) and a list
-- for wipe_job. scripts/gen-lua.ts writes both literals from JOB_SUBS in src/keys/registry.ts in
-- place of the markers, so the Lua copy cannot drift from the registry.
local EMQ_JOB_SUBS = EMQ_GENERATED_JOB_SUB_SET
local EMQ_JOB_SUB_LIST = EMQ_GENERATED_JOB_SUB_LIST

-- jkey(JR, id, sub): the job root plus a checked id plus an optional fixed sub-suffix.
local function jkey(root, id, sub)
  sub = sub or ''
  if not vid(id) then error({ err = 'EMQKEYLAW unchecked id in rooted key' }) end
  if not EMQ_JOB_SUBS[sub] then error({ err = 'EMQKEYLAW unknown job sub-key' }) end
  return root .. id .. sub
end

-- gkey(GR, g): the lane root plus a checked group id plus the fixed ':pending'.
local function gkey(root, g)
  if not vid(g) then error({ err = 'EMQKEYLAW unchecked group in rooted key' }) end
  return root .. g .. ':pending'
end
-- [TS] vdid(s): true iff s is an idempotency key (a dedup id or business key) by the name grammar
-- of protocol.md §1: 1..255 bytes of [A-Za-z0-9._-].
local function vdid(s)
  return type(s) == 'string' and #s >= 1 and #s <= 255 and string.match(s, '^[A-Za-z0-9._-]+$') ~= nil
end

-- [TS] dkey(DR, did): the idempotency root `emq:{q}:de:` plus a checked key, so a script can release
-- the key a row names (its `dedup` field) without the host declaring it.
local function dkey(root, did)
  if not vdid(did) then error({ err = 'EMQKEYLAW unchecked idempotency key in rooted key' }) end
  return root .. did
end
-- core: end of the pure part

-- now_ms(): server epoch milliseconds; read once per call so every member of a batch shares it.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- due_hint(wake, wait): tells parked workers the schedule's head falls due in `wait` ms ([TS] `d:<ms>`
-- on the wake list, which stays bounded like every wake push).
local function due_hint(wake, wait)
  if wait < 0 then wait = 0 end
  redis.call('LPUSH', wake, 'd:' .. string.format('%d', wait))
  redis.call('LTRIM', wake, 0, 63)
end

-- wipe_job(JR, id): a row and every registered sub-key it may own (a flow parent's :processed,
-- :dependencies…, [TS] the attempt history :attempts), in one DEL.
local function wipe_job(root, id)
  local keys = { jkey(root, id) }
  for i, sub in ipairs(EMQ_JOB_SUB_LIST) do keys[i + 1] = jkey(root, id, sub) end
  redis.call('DEL', unpack(keys))
end
