-- The device specs on a real CUDA device (backend "cuda"): each test is
-- pending when gm.cuda_available() is false, as on the machines this
-- project is developed on.  #outermost: spec/helper.lua does not wrap
-- them in the GPUMAT_DEVICE context, so they open the real device.
local gm = require "gpumat"
local need_gpu, CUDA = require("gpu_case")(_ENV)
local ops = require "device_ops"

describe("on a real GPU", function()
  it("runs ops on the device and copies only when stale #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function()
      local x = gm.mat(1000, { initial_element = 1 })
      local y = gm.mat(1000, { initial_element = 2 })
      gm.scal_(2, x)
      gm.axpy_(0.5, x, y)
      assert.are.equal(0, gm.counters().n_memcpy_host_to_device)
      assert.are.equal(0, gm.counters().n_memcpy_device_to_host)
      assert.are.equal(3, y[1])
      assert.are.equal(1, gm.counters().n_memcpy_device_to_host)
      assert.are.equal(3, y[1000])
      assert.are.equal(1, gm.counters().n_memcpy_device_to_host)
    end)
  end)

  -- every op family of spec/device_ops.lua, as device_spec.lua runs them
  -- on the emulated device
  for _, f in ipairs(ops.families) do
    it("agrees with the host: " .. f.name .. " #outermost", function()
      if not need_gpu() then return end
      for _, ctype in ipairs { "float", "double" } do ops.agree(f, ctype, CUDA) end
    end)
  end

  it("draws the host's Philox values for the same seed #outermost", function()
    if not need_gpu() then return end
    local function draw(on_device, ctype)
      local function body()
        gm.seed(77)
        local u = gm.mat(100003, { ctype = ctype })
        gm.uniform_random_(u, { limit = 2 })
        local g = gm.mat(100003, { ctype = ctype })
        gm.gaussian_random_(g, { mean = 1, stddev = 3 })
        return u:to_table(), g:to_table()
      end
      if on_device then return gm.with_cuda(CUDA, body) end
      return gm.with_cuda({ enabled = false }, body)
    end
    for _, ctype in ipairs { "float", "double" } do
      local hu, hg = draw(false, ctype)
      local du, dg = draw(true, ctype)
      for i = 1, #hu do assert.are.equal(hu[i], du[i]) end
      -- gaussians: sqrt/log/cos may differ in the last ulp between libm and CUDA
      local tol = ctype == "float" and 1e-5 or 1e-12
      for i = 1, #hg do assert.is_true(math.abs(hg[i] - dg[i]) <= tol * (1 + math.abs(hg[i])), i) end
    end
  end)

  it("draws gaussian and double uniform samples with the right moments #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function()
      for _, ctype in ipairs { "float", "double" } do
        local m = gm.mat(20000, { ctype = ctype })
        gm.uniform_random_(m, { limit = 3 })
        local s, lo, hi = 0, math.huge, -math.huge
        for _, v in ipairs(m:to_table()) do s, lo, hi = s + v, math.min(lo, v), math.max(hi, v) end
        assert.is_true(lo >= 0 and hi < 3 and math.abs(s / 20000 - 1.5) < 0.05, ctype)
        gm.gaussian_random_(m, { mean = 2, stddev = 0.5 })
        local s1, s2 = 0, 0
        for _, v in ipairs(m:to_table()) do s1, s2 = s1 + v, s2 + v * v end
        local mean = s1 / 20000
        assert.is_true(math.abs(mean - 2) < 0.02, ctype)
        assert.is_true(math.abs(math.sqrt(s2 / 20000 - mean * mean) - 0.5) < 0.02, ctype)
      end
    end)
  end)

  it("returns device bytes in use to the baseline after collectgarbage() and gm.collect() #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function()
      collectgarbage()
      gm.collect()
      local base = gm.counters().device_bytes_in_use
      for i = 1, 20 do gm.fill_(i, gm.mat(10000)) end
      assert.is_true(gm.counters().device_bytes_in_use > base)
      collectgarbage()
      collectgarbage()
      gm.collect()
      assert.are.equal(base, gm.counters().device_bytes_in_use)
    end)
  end)

  it("fits 128 mats of 8 MiB in a 500 MiB pool and raises cuda_out_of_memory below one #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda({ backend = "cuda", n_pool_bytes = 500 * 2 ^ 20 // 1 }, function()
      for i = 1, 128 do gm.fill_(i, gm.mat(2 ^ 20 // 1)) end
    end)
    gm.with_cuda({ backend = "cuda", n_pool_bytes = 4096 }, function()
      local ok, e = pcall(gm.fill_, 1, gm.mat(1000))
      assert.is_false(ok)
      assert.are.equal("cuda_out_of_memory", e.kind)
      assert.are.equal(4096, e.limit)
      local m = gm.mat(10)
      gm.fill_(2, m)
      assert.are.equal(2, m[10])
    end)
  end)

  it("leaves only the host facet and returns device memory at exit #outermost", function()
    if not need_gpu() then return end
    local m = gm.mat(100, { initial_element = 1 })
    gm.with_cuda(CUDA, function() gm.scal_(3, m) end)
    assert.are.equal("F", m:facets())
    assert.are.equal(3, m[100])
    collectgarbage()
    gm.collect()
    assert.are.equal(0, gm.counters().device_bytes_in_use)
  end)

  it("syncs facets on the copy stream #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function()
      local a, b = gm.mat(1000, { initial_element = 1 }), gm.mat(1000, { initial_element = 1 })
      a[1] = 2
      gm.scal_(2, b)
      gm.with_syncing_cuda_facets({ a }, { b }, { safe = true }, function() end)
      assert.is_truthy(a:facets():find("C", 1, true))
      assert.is_nil(b:facets():find("C", 1, true))
      assert.are.equal(2, b[1])
    end)
  end)

  it("device_info describes the device #outermost", function()
    if not need_gpu() then return end
    local info = gm.device_info(0)
    assert.are.equal("cuda", info.backend)
    assert.is_true(info.total_memory > 0)
    assert.are.equal(32, info.warp_size)
    assert.is_true(gm.device_count() >= 1)
  end)
end)
