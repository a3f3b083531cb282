-- @script enqueue_dedup
-- @purpose Admit a job under an idempotency key: the key parks the first job's id, optionally for a
-- TTL, and later admissions under it report that id (queue.md §2.2).
-- @key row        emq:{q}:job:<id>
-- @key pending    emq:{q}:pending
-- @key dedup      emq:{q}:de:<did>
-- @keys wake      optional emq:{q}:wake [TS]
-- @arg id         the job's branded id; must be JOB-namespaced
-- @arg payload    opaque bytes
-- @arg ttl_ms     idempotency window in ms; "" parks the key without expiry
-- @args fields   [TS] per-job option pairs written into the row with it: name, max_attempts,
-- backoff (a curve spec as JSON), timeout_ms, priority (scores the pending entry -priority); the
-- spec fields are written after them and win
-- @returns {1, id} enqueued; {0, id} row duplicate; {2, parked} dedup hit (nothing written)
-- @error EMQKIND job id must be JOB-namespaced
if string.sub(ARGV[1], 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
local parked = redis.call('GET', KEYS[3])
if parked then return { 2, parked } end
if redis.call('EXISTS', KEYS[1]) == 1 then return { 0, ARGV[1] } end
local f = { unpack(ARGV, 4) }
-- [TS] A priority pair scores the pending entry -priority: higher first, mint order within one.
local score = 0
for i = 1, #f - 1, 2 do
  if f[i] == 'priority' then score = 0 - (tonumber(f[i + 1]) or 0) end
end
for _, v in ipairs({ 'state', 'pending', 'attempts', '0', 'payload', ARGV[2] }) do f[#f + 1] = v end
redis.call('HSET', KEYS[1], unpack(f))
redis.call('ZADD', KEYS[2], score, ARGV[1])
if ARGV[3] == '' then
  redis.call('SET', KEYS[3], ARGV[1], 'NX')
else
  redis.call('SET', KEYS[3], ARGV[1], 'NX', 'PX', ARGV[3])
end
if KEYS[4] then
  redis.call('LPUSH', KEYS[4], '1')
  redis.call('LTRIM', KEYS[4], 0, 63)
end
return { 1, ARGV[1] }
