-- @lib strict-prelude
-- @purpose Test-mode guard for the key law (protocol.md §6.1). Every redis.call in the wrapped script
-- is routed through emq_strict_call, which refuses any key that is neither declared in KEYS nor a
-- declared root (ending ':job:' or ':g:') followed by a checked id and an allowed fixed suffix.
local emq_declared = {}
local emq_roots = {}
for _, k in ipairs(KEYS) do
  emq_declared[k] = true
  if string.sub(k, -5) == ':job:' then
    emq_roots[#emq_roots + 1] = { k, 'job' }
  elseif string.sub(k, -3) == ':g:' then
    emq_roots[#emq_roots + 1] = { k, 'g' }
  end
end
local EMQ_STRICT_JOB_SUBS = { [''] = true, [':lock'] = true, [':logs'] = true, [':dependencies'] = true,
  [':processed'] = true, [':failed'] = true, [':unsuccessful'] = true }
-- Byte order, not the server's collation: Redis sets LC_COLLATE from its environment, so Lua's
-- string comparison follows the locale, which is not byte order outside the C locale.
local function emq_strict_bytes_le(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a <= #b
end

local function emq_strict_vid(s)
  return type(s) == 'string' and #s == 14 and string.match(s, '^%u%u%u[0-9A-Za-z]+$') ~= nil
    and emq_strict_bytes_le(string.sub(s, 4), 'AzL8n0Y58m7')
end
local function emq_key_ok(key)
  if type(key) ~= 'string' then return false end
  if emq_declared[key] then return true end
  for _, r in ipairs(emq_roots) do
    local root = r[1]
    if string.sub(key, 1, #root) == root then
      local rest = string.sub(key, #root + 1)
      local suffix = string.sub(rest, 15)
      if emq_strict_vid(string.sub(rest, 1, 14)) then
        if r[2] == 'job' and EMQ_STRICT_JOB_SUBS[suffix] then return true end
        if r[2] == 'g' and suffix == ':pending' then return true end
      end
    end
  end
  return false
end
-- How many leading arguments of each command are keys: 1, 2, or 'all'; 0 for none.
local EMQ_KEY_ARGS = {
  time = 0, publish = 1,
  get = 1, set = 1, setnx = 1, psetex = 1, incr = 1, incrby = 1, decr = 1, decrby = 1, getdel = 1,
  pexpire = 1, expire = 1, pttl = 1, ttl = 1, type = 1, strlen = 1,
  hget = 1, hset = 1, hsetnx = 1, hdel = 1, hincrby = 1, hmget = 1, hgetall = 1, hexists = 1, hkeys = 1,
  hlen = 1, hvals = 1,
  zadd = 1, zrem = 1, zcard = 1, zscore = 1, zrange = 1, zrangebyscore = 1, zrangebylex = 1,
  zrevrangebylex = 1, zpopmin = 1, zrank = 1, zcount = 1, zmscore = 1,
  lpush = 1, rpush = 1, lpop = 1, rpop = 1, lrem = 1, lpos = 1, lrange = 1, ltrim = 1, llen = 1, lindex = 1,
  sadd = 1, srem = 1, sismember = 1, smembers = 1, scard = 1,
  xadd = 1, xrange = 1, xtrim = 1, xlen = 1,
  lmove = 2, rpoplpush = 2,
  del = 'all', exists = 'all', unlink = 'all',
}
local function emq_strict_check(cmd, ...)
  local spec = EMQ_KEY_ARGS[string.lower(cmd)]
  if spec == nil then error({ err = 'EMQKEYLAW command unknown to the strict checker: ' .. tostring(cmd) }) end
  local n = spec
  if spec == 'all' then n = select('#', ...) end
  for i = 1, n do
    local k = select(i, ...)
    if not emq_key_ok(k) then
      error({ err = 'EMQKEYLAW undeclared key ' .. tostring(k) .. ' in ' .. tostring(cmd) })
    end
  end
end
local function emq_strict_call(cmd, ...)
  emq_strict_check(cmd, ...)
  return redis.call(cmd, ...)
end
local function emq_strict_pcall(cmd, ...)
  emq_strict_check(cmd, ...)
  return redis.pcall(cmd, ...)
end
