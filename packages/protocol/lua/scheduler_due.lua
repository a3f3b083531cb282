-- @script scheduler_due
-- @purpose [TS] The due schedulers with the occurrence each is due for (queue.md §10.1 `due`, with
-- scores): the host fires each through scheduler_fire, which compares the score, so pumps in any
-- number of processes fire an occurrence once.
-- @key repeat     emq:{q}:repeat
-- @arg limit      at most this many names
-- @include core
-- @returns a flat list name1, score1, name2, score2, ... oldest first
return redis.call('ZRANGEBYSCORE', k_repeat, '-inf', now_ms(), 'WITHSCORES', 'LIMIT', 0, tonumber(a_limit))
