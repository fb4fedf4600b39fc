-- cuSOLVER on a real GPU (pending without one): invert and logdet stay
-- on the device, plus the review's first-contact checks that need the
-- real runtime (docs/GPU.md, "Review findings").  #outermost: not wrapped
-- by spec/helper.lua.
local gm = require "gpumat"
local need_gpu, CUDA = require("gpu_case")(_ENV)

describe("cuSOLVER on a real GPU", function()
  require("solver_cases")(it, CUDA, need_gpu)
end)

describe("review checks on a real GPU", function()
  it("a failed cudaMalloc leaves no stale error for the next launch #outermost", function()
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

  it("exposes the compute stream #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function() assert.are.equal("userdata", type(gm.cuda_stream())) end)
  end)
end)

describe("on a real GPU: geam with beta 0 and scal by 0 agree with the host", function()
  local function run(on_device)
    local function body()
      local a = gm.mat({ 2, 2 }, { initial_contents = { { math.huge, 1 }, { -math.huge, 0 / 0 } } })
      gm.scal_(1, a)
      local t = gm.transpose(a)
      local z = gm.mat(3, { initial_contents = { 0 / 0, math.huge, 2 } })
      gm.scal_(1, z)
      gm.scal_(0, z)
      return t:to_table(), z:to_table()
    end
    if on_device then return gm.with_cuda(CUDA, body) end
    return gm.with_cuda({ enabled = false }, body)
  end

  it("propagates infinities through a transpose and NaN/Inf through scal by 0 as the host #outermost", function()
    if not need_gpu() then return end
    local ht, hz = run(false)
    local dt, dz = run(true)
    local function same(x, y) return (x ~= x and y ~= y) or x == y end
    for i = 1, 2 do for j = 1, 2 do assert.is_true(same(ht[i][j], dt[i][j]), i .. "," .. j) end end
    for i = 1, 3 do assert.is_true(same(hz[i], dz[i]), i) end
  end)
end)
