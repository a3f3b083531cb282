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
-- backoff (a curve spec as JSON), timeout_ms, priority (scores the pending entry -priority),
-- traceparent, tracestate (the producer's W3C trace context); the
-- spec fields are written after them and win
-- @include admit
-- @returns {1, id} enqueued; {0, id} row duplicate; {2, parked} dedup hit (nothing written)
-- @error EMQKIND job id must be JOB-namespaced
if string.sub(ARGV[1], 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
local parked = redis.call('GET', KEYS[3])
if parked then return { 2, parked } end
if redis.call('EXISTS', KEYS[1]) == 1 then return { 0, ARGV[1] } end
local score = admit_row(KEYS[1], 'pending', ARGV[2], { unpack(ARGV, 4) })
redis.call('ZADD', KEYS[2], score, ARGV[1])
park_dedup(KEYS[3], ARGV[1], ARGV[3])
if KEYS[4] then
  redis.call('LPUSH', KEYS[4], '1')
  redis.call('LTRIM', KEYS[4], 0, 63)
end
return { 1, ARGV[1] }
