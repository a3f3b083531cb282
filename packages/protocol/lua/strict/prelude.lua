-- @lib strict-prelude
-- @purpose Test-mode guard for the key law (protocol.md §6.1): the run-time reading of the law that
-- src/scripts/key-law.ts reads statically. strict.ts opens the prelude with core's pure part (vid,
-- jkey, gkey) and EMQ_KEY_ARGS, written from the static reader's key-position table, then this file.
-- Every redis.call of the wrapped script goes through emq_strict_call, and every jkey/gkey call
-- through emq_strict_jkey/emq_strict_gkey. A key passes when it is declared in KEYS, or when this
-- call built it with a builder whose root is a declared root (a key ending ':job:' for jkey, ':g:'
-- for gkey, ':de:' for dkey): the same two forms the static reader admits, nothing read off the value's shape.
local emq_declared = {}
for _, k in ipairs(KEYS) do emq_declared[k] = true end
local emq_built = {}

local function emq_strict_root(root, tail, builder)
  if type(root) ~= 'string' or not emq_declared[root] or string.sub(root, -#tail) ~= tail then
    error({ err = 'EMQKEYLAW ' .. builder .. ' on ' .. tostring(root) .. ', which is not a declared root' })
  end
end
local function emq_strict_jkey(root, id, sub)
  emq_strict_root(root, ':job:', 'jkey')
  local key = jkey(root, id, sub)
  emq_built[key] = true
  return key
end
local function emq_strict_gkey(root, g)
  emq_strict_root(root, ':g:', 'gkey')
  local key = gkey(root, g)
  emq_built[key] = true
  return key
end

local function emq_strict_dkey(root, did)
  emq_strict_root(root, ':de:', 'dkey')
  local key = dkey(root, did)
  emq_built[key] = true
  return key
end

local function emq_strict_check(cmd, ...)
  local spec = EMQ_KEY_ARGS[string.lower(cmd)]
  if spec == nil then error({ err = 'EMQKEYLAW command unknown to the strict checker: ' .. tostring(cmd) }) end
  local n = spec
  if spec == 'all' then n = select('#', ...) end
  for i = 1, n do
    local k = select(i, ...)
    if type(k) ~= 'string' or not (emq_declared[k] or emq_built[k]) then
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
