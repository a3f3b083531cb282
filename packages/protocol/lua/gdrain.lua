-- @script gdrain
-- @purpose Delete every waiting job of one lane with its row and sub-keys, then the lane and its ring
-- entry (queue.md §5.6). In-flight jobs, counters, settings and other lanes are untouched. [TS] Flow
-- parents in this queue are tidied as drain tidies them: a parent whose children were all drained is
-- deleted with them (and leaves the index of waiting parents), one with a child still open has its
-- count lowered.
-- @key lane       emq:{q}:g:<g>:pending
-- @key ring       emq:{q}:ring
-- @key jobroot    emq:{q}:job:
-- @key waiting    emq:{q}:waiting-children [TS]
-- @arg g          the group's branded id (the lane's own)
-- @include core tidy
-- @returns the number of jobs deleted (parents included)
-- @error EMQKIND group id must be a branded id
if not vid(a_g) then return redis.error_reply('EMQKIND group id must be a branded id') end
local JR = k_jobroot
local tally = tidy_tally(JR)
local n = 0
for _, id in ipairs(redis.call('ZRANGE', k_lane, 0, -1)) do
  if vid(id) then
    tidy_note(tally, id)
    wipe_job(JR, id)
    n = n + 1
  end
end
redis.call('DEL', k_lane)
redis.call('LREM', k_ring, 0, a_g)
return n + tidy_settle(tally, k_waiting)
