-- Scans, take and boolean masks: allocating
-- forms against numpy's same calls in the same run, on the host (goal
-- time <= 1.0x numpy's) and on the emulated device (goal within 3x of
-- the host; the rows compare with numpy, so emulated / host is the ratio
-- of the two rows' ratios, both from this run):
--   cumsum of 16M float64 (one line: the chunked scan of kernels/scan.h),
--   cumsum along axis 2 of 4096 x 4096 float64 (numpy's axis=1: the last
--   axis of a row-major array, 4096 lines of 4096),
--   take of 4M int64 positions ((k * 104729) % 16M, 1-based here) from
--   16M float32, and m[mask] of 16M float32 with mask = m > 0.5 (about
--   half true; stream compaction, kernels/compact.h).
-- Data: the bench pattern (bench_util.pattern_mat); indices and mask are
-- made once, outside the timed calls, on both sides.
local gm = require "gpumat"
local U = require "bench_util"

local N = U.N16M
local EMU = { backend = "emulated" }

-- 1-based (k * 104729) % n + 1 for k = 0..n/4-1, int64
local function take_index(n)
  local k = gm.arange(n // 4)
  return (gm.cmul(k, 104729) % n + 1):astype("int64")
end

-- label, numpy op, dtype, dims, gm functions needed, make(a) -> call
local FORMS = {
  { "cumsum of 16M float64", "s_cumsum", "float64", { N }, { "cumsum" },
    function(a) return function() return a:cumsum(1) end end },
  { "cumsum along axis 2 of 4096x4096 float64", "s_cumsum_ax1", "float64", { 4096, 4096 }, { "cumsum" },
    function(a) return function() return a:cumsum(2) end end },
  { "take of 4M int64 indices from 16M float32", "s_take", "float32", { N }, { "take" },
    function(a)
      local idx = take_index(N)
      return function() return gm.take(a, idx) end, idx
    end },
  { "m[mask] of 16M float32, mask = m > 0.5", "s_masked", "float32", { N }, { "gt" },
    function(a)
      local mask = a:gt(0.5)
      return function() return a[mask] end, mask
    end },
}

local function case(form, place)
  local label, np_op, dtype, dims, requires, make = table.unpack(form)
  local dev = place == "emulated"
  return {
    name = label .. " (" .. place .. ")",
    group = "scan",
    requires = requires,
    prepare = function()
      local a, f, aux
      local function build()
        a = U.pattern_mat(gm, dims, dtype == "float64" and "double" or "float")
        if dev then a:set_cuda_enabled(true) end
        f, aux = make(a)
      end
      if dev then gm.with_cuda(EMU, build) else build() end
      local loop = U.last_of(f, dev and gm.synchronize)
      local run = dev and function(n) return gm.with_cuda(EMU, function() return loop(n) end) end or loop
      return run, nil, function() U.free(a, aux) end
    end,
    against = { {
      label = "numpy",
      numpy = { op = np_op, dtype = dtype, dims = dims },
      goal = U.time_at_most(dev and 3.0 or 1.0, "numpy"),
    } },
  }
end

local cases = {}
for _, form in ipairs(FORMS) do
  cases[#cases + 1] = case(form, "host")
  cases[#cases + 1] = case(form, "emulated")
end

return {
  order = 17,
  title = "Scans, take and boolean masks (allocating forms)",
  description = "Each call allocates its result; numpy runs the same calls on arrays of the same dtype and " ..
    "values. Emulated rows run the same calls inside gm.with_cuda({backend = \"emulated\"}) on mats already " ..
    "on the device and wait for the device; their goal (3x numpy) stands for the issue's 3x of the host.",
  notes = {
    "numpy's cumsum(axis=1) of a C-ordered 2-d array runs along its last axis: gpumat's axis 2 (1-based, row-major).",
  },
  cases = cases,
}
