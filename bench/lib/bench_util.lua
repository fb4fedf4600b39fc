-- Helpers for benchmark files: goals and deterministic test data.
local U = {}

U.N16M = 4096 * 4096

-- A goal compares t_gpumat / t_baseline ("time ratio", lower is better) with
-- a bound; `text` keeps the wording of the issue.
function U.speed_at_least(x, what)
  return { max_ratio = 1 / x, text = string.format("speed ≥ %.2f× %s", x, what) }
end

function U.time_at_most(x, what)
  return { max_ratio = x, text = string.format("time ≤ %.2f× %s", x, what) }
end

-- The data pattern shared with numpy_ops.py and c_baselines.c (0-based k):
-- values in [0.25, 0.75), period 4096, fine for log/sqrt and friends.
function U.pattern_value(k)
  return 0.25 + 0.5 * ((k * 37) % 4096) / 4096
end

-- A mat of `dims` filled with the pattern in row-major order.  The first 4096
-- elements are set one by one, the rest by doubling with gm.copy_ between
-- displaced views (the pattern's period divides every copy offset), so big
-- mats need copy_ (list it in the case's `requires`).
function U.pattern_mat(gm, dims, ctype)
  local m = gm.mat(dims, { ctype = ctype })
  local size = m:size()
  local flat = gm.mat(size, { displaced_to = m })
  local first = math.min(size, 4096)
  for k = 1, first do flat[k] = U.pattern_value(k - 1) end
  local len = first
  while len < size do
    local c = math.min(len, size - len)
    gm.copy_(gm.mat(c, { displaced_to = m }), gm.mat(c, { displaced_to = m, displacement = len }))
    len = len + c
  end
  return m
end

-- Free mats now rather than at some later GC (16M-element mats are big).
function U.free(...)
  for i = 1, select("#", ...) do
    local m = select(i, ...)
    if m and not m:is_freed() then m:free() end
  end
end

-- run(n): n calls of the allocating form f, keeping only the last result
-- (the others become garbage, as in a user's loop), then after() if given
-- (a device sync, so queued work is timed)
function U.last_of(f, after)
  return function(n)
    local r
    for _ = 1, n do r = f() end
    if after then after() end
    return r
  end
end

return U
