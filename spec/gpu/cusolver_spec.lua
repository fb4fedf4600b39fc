-- cuSOLVER on a real GPU (pending without one): invert and logdet stay
-- on the device, plus the review's first-contact checks that need the
-- real runtime (docs/GPU.md, "Review findings").  #outermost: not wrapped
-- by spec/helper.lua.
local gm = require "gpumat"

local CUDA = { backend = "cuda" }

local function need_gpu()
  local ok, why = gm.cuda_available()
  if not ok then pending("no CUDA device: " .. tostring(why)) end
  return ok
end

describe("cuSOLVER on a real GPU", function()
  require("solver_cases")(it, CUDA, need_gpu)
end)

describe("review checks on a real GPU", function()
  it("a failed cudaMalloc leaves no stale error for the next launch (#1) #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function()
      local total = gm.device_info().total_memory
      local ok, err = pcall(gm.fill_, 1, gm.mat(total // 4 * 2, { ctype = "float" })) -- twice the device
      assert.is_false(ok)
      assert.are.equal("cuda_out_of_memory", err.kind)
      local m = gm.mat(1000)
      gm.fill_(3, m) -- would fail with the stale cudaErrorMemoryAllocation
      assert.are.equal(3, m[1000])
    end)
  end)

  it("exposes the compute stream (#4) #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function() assert.are.equal("userdata", type(gm.cuda_stream())) end)
  end)
end)
