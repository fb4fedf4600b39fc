-- Sorting, selection, sets and search (issue "Indexing, ordering, sets and
-- scans", items 5 and 6): the sorts
-- along an axis on the radix sort (kernels/radix.h), topk, unique and
-- searchsorted against numpy's same calls in the same run, goal time <=
-- 1.0x numpy's.  Data: h(k) = (k * 2654435761) % 2^32 for k = 0..n-1
-- (a multiplicative hash: every value once, scattered), float32 h / 2^32,
-- or int32 h % 1000 for unique (1000 distinct values); searchsorted looks
-- up the first 1M of those floats in the sorted 16M.  gm.sort returns the
-- int64 indices too (Torch's pair), numpy's sort the values only; gm's
-- sorts are stable, numpy's default quicksort is not.
local gm = require "gpumat"
local U = require "bench_util"

local N = U.N16M

-- float32 h(k) / 2^32 (or int32 h(k) % 1000) of k = 0..n-1, as dims
local function hashed(n, dims, unique)
  local h = gm.cmul(gm.arange(n), 2654435761) % 4294967296
  if unique then return (h % 1000):astype("int32"):view(dims) end
  return (h:astype("float64") * (1 / 4294967296)):astype("float32"):view(dims)
end

-- label, numpy op, dims, gm functions needed, make() -> call, operands
local FORMS = {
  { "sort of 16M float32", "o_sort", { N }, { "sort" }, function()
    local a = hashed(N, { N })
    return function() return gm.sort(a) end, a
  end },
  { "argsort of 4M float32", "o_argsort", { N // 4 }, { "argsort" }, function()
    local a = hashed(N // 4, { N // 4 })
    return function() return gm.argsort(a) end, a
  end },
  { "sort along the last axis of 4096x4096 float32", "o_sort", { 4096, 4096 }, { "sort" }, function()
    local a = hashed(N, { 4096, 4096 })
    return function() return gm.sort(a) end, a
  end },
  { "topk k=10 of 16M float32", "o_topk10", { N }, { "topk" }, function()
    local a = hashed(N, { N })
    return function() return gm.topk(a, 10) end, a
  end },
  { "unique of 4M int32 (1000 distinct)", "o_unique1000", { N // 4 }, { "unique_values" }, function()
    local a = hashed(N // 4, { N // 4 }, true)
    return function() return gm.unique_values(a) end, a
  end },
  { "searchsorted of 1M queries into 16M sorted", "o_searchsorted", { N, 1048576 }, { "searchsorted" }, function()
    local s = gm.sort(hashed(N, { N }))
    local q = hashed(1048576, { 1048576 })
    return function() return gm.searchsorted(s, q) end, s, q
  end },
}

local function case(form)
  local label, np_op, dims, requires, make = form[1], form[2], form[3], form[4], form[5]
  return {
    name = label,
    group = "ordering",
    requires = requires,
    prepare = function()
      local ops = { make() }
      local f = ops[1]
      return U.last_of(f), nil, function() U.free(table.unpack(ops, 2)) end
    end,
    against = { {
      label = "numpy",
      numpy = { op = np_op, dtype = np_op == "o_unique1000" and "int32" or "float32", dims = dims },
      goal = U.time_at_most(1.0, "numpy"),
    } },
  }
end

local cases = {}
for _, form in ipairs(FORMS) do cases[#cases + 1] = case(form) end

return {
  order = 17,
  title = "Sorting, selection, sets and search (allocating forms)",
  description = "Each call allocates its results; numpy runs the same calls on the same values " ..
    "(h(k) = (k * 2654435761) mod 2^32: float32 h / 2^32, int32 h mod 1000).",
  notes = {
    "gm.sort returns values and int64 indices (numpy's sort only values); gm's sorts are stable, " ..
      "numpy's default quicksort is not.",
    "topk: numpy's argpartition, then argsort of the k (largest first).",
  },
  cases = cases,
}
