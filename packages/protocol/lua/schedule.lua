-- @script schedule
-- @purpose Admit a job that may not run before a time: absolute (`at`) or relative to the server
-- clock (`in`) (queue.md §2.4).
-- @key row        emq:{q}:job:<id>
-- @key schedule   emq:{q}:schedule
-- @arg id         the job's branded id; must be JOB-namespaced
-- @arg payload    opaque bytes
-- @arg mode       "at" (absolute epoch ms) or "in" (ms from server now)
-- @arg ms         the time or the delay, in ms
-- @args fields   [TS] per-job option pairs written into the row with it: name, max_attempts,
-- backoff (a curve spec as JSON), timeout_ms, priority (read when promote moves it to pending);
-- the spec fields are written after them and win
-- @include core
-- @returns 1 scheduled; 0 duplicate (nothing written)
-- @error EMQKIND job id must be JOB-namespaced
if string.sub(ARGV[1], 1, 3) ~= 'JOB' then return redis.error_reply('EMQKIND job id must be JOB-namespaced') end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local score = tonumber(ARGV[4])
if ARGV[3] == 'in' then score = now_ms() + score end
local f = { unpack(ARGV, 5) }
for _, v in ipairs({ 'state', 'scheduled', 'attempts', '0', 'payload', ARGV[2] }) do f[#f + 1] = v end
redis.call('HSET', KEYS[1], unpack(f))
redis.call('ZADD', KEYS[2], score, ARGV[1])
return 1
