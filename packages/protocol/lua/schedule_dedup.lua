-- @script schedule_dedup
-- @purpose [TS] Admit a job that may not run before a time under an idempotency key: the keyed
-- admission of enqueue_dedup (queue.md §2.2) with the timing of schedule (§2.4), in one step.
-- @key row        emq:{q}:job:<id>
-- @key schedule   emq:{q}:schedule
-- @key dedup      emq:{q}:de:<did>
-- @arg id         the job's branded id; must be JOB-namespaced
-- @arg payload    opaque bytes
-- @arg mode       "at" (absolute epoch ms) or "in" (ms from server now)
-- @arg ms         the time or the delay, in ms
-- @arg ttl_ms     idempotency window in ms; "" parks the key without expiry
-- @args fields    per-job option pairs written into the row with it, as schedule takes them
-- @include core admit
-- @returns {1, id} scheduled; {0, id} row duplicate; {2, parked} dedup hit (nothing written)
-- @error EMQKIND job id must be JOB-namespaced
if string.sub(ARGV[1], 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
local parked = redis.call('GET', KEYS[3])
if parked then return { 2, parked } end
if redis.call('EXISTS', KEYS[1]) == 1 then return { 0, ARGV[1] } end
local score = tonumber(ARGV[4])
if ARGV[3] == 'in' then score = now_ms() + score end
admit_row(KEYS[1], 'scheduled', ARGV[2], { unpack(ARGV, 6) })
redis.call('ZADD', KEYS[2], score, ARGV[1])
park_dedup(KEYS[3], ARGV[1], ARGV[5])
return { 1, ARGV[1] }
