-- REPL conveniences on a real CUDA device: the reduce kernels
-- (kernels/reduce.cu) and the scalar operators, against the host.  Pending
-- without a device (#outermost: they open the real device themselves).
local gm = require "gpumat"
local need_gpu, CUDA = require("gpu_case")(_ENV)

local function isnan(x) return x ~= x end

describe("conveniences on a real GPU", function()
  it("m:sum() m:mean() m:min() m:max() run on the device and agree with the host #outermost", function()
    if not need_gpu() then return end
    for _, ct in ipairs { "float", "double" } do
      for _, n in ipairs { 1, 255, 256, 257, 100003, 3000001 } do
        local m = gm.mat(n, { ctype = ct })
        local t = {}
        for i = 1, n do t[i] = ((i * 7919) % 1000) - 500 end -- integers: exact in any order
        m:replace_(t)
        local host = { m:sum(), m:mean(), m:min(), m:max() }
        gm.with_cuda(CUDA, function()
          local d = gm.mat(n, { ctype = ct })
          d:copy_(m)
          local dev = { d:sum(), d:mean(), d:min(), d:max() }
          assert.matches("C", d:facets())
          assert.are.same(host, dev, ct .. " n=" .. n)
          d[math.max(1, n // 2)] = 0 / 0
          assert.is_true(isnan(d:sum()) and isnan(d:min()) and isnan(d:max()))
        end)
      end
    end
  end)

  it("float sums accumulate in double on the device #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function()
      local m = gm.mat(101, { ctype = "float", initial_element = 1 })
      m[1] = 16777216
      assert.are.equal(16777316, m:sum())
    end)
  end)

  it("scalar operands run on the device #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function()
      local m = gm.mat({ 2, 2 }, { initial_contents = { { 1, 2 }, { 3, 4 } } })
      local r = (2 - m) * 3 + 1
      assert.are.same({ { 4, 1 }, { -2, -5 } }, r:to_table())
      assert.are.same({ { 1, 2 }, { 3, 4 } }, m:to_table())
    end)
  end)
end)
