-- Strided views on a real CUDA device (backend "cuda"): every op family of
-- spec/device_ops.lua on stepped and transposed operands (staged through
-- kernels/strided.cu, or gemm in place) agrees with the contiguous host
-- run, and writes through views reach the device facet.  Pending when
-- gm.cuda_available() is false.  #outermost: not wrapped by
-- spec/helper.lua's GPUMAT_DEVICE context.
local gm = require "gpumat"
local need_gpu, CUDA = require("gpu_case")(_ENV)
local strided = require "strided_mats"

describe("strided views on a real GPU", function()
  for _, f in ipairs(strided.families()) do
    it("agrees with the host: " .. f.name .. " #outermost", function()
      if not need_gpu() then return end
      strided.agree(f, CUDA)
    end)
  end

  it("slice assignment and transposed writes on the device #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function()
      local m = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
      m:scal_(1)
      m[{ {}, 2 }] = 0
      m:t()[{ 3 }] = gm.array_to_mat({ -1, -2 })
      assert.is_truthy(m:facets():find("C", 1, true))
      assert.are.same({ { 1, 0, -1 }, { 4, 0, -2 } }, m:to_table())
    end)
  end)
end)
