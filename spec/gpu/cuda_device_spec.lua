-- The device specs on a real CUDA device (backend "cuda"): each test is
-- pending when gm.cuda_available() is false, as on the machines this
-- project is developed on.  #outermost: spec/helper.lua does not wrap
-- them in the GPUMAT_DEVICE context, so they open the real device.
local gm = require "gpumat"

local CUDA = { backend = "cuda" }

local function need_gpu()
  local ok, why = gm.cuda_available()
  if not ok then pending("no CUDA device: " .. tostring(why)) end
  return ok
end

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

  it("agrees with the host on BLAS, fill and elementwise ops #outermost", function()
    if not need_gpu() then return end
    for _, ctype in ipairs { "float", "double" } do
      local function run()
        local a = gm.mat({ 3, 4 }, { ctype = ctype, initial_contents = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 9, 1, 2, 3 } } })
        local b = gm.mat({ 4, 2 }, { ctype = ctype, initial_contents = { { 1, 0 }, { 2, 1 }, { 0, 3 }, { 1, 1 } } })
        local c = gm.mat({ 3, 2 }, { ctype = ctype, initial_element = 1 })
        gm.gemm_(2, a, b, 0.5, c)
        local x = gm.mat(5, { ctype = ctype, initial_contents = { 0.5, 1, 1.5, 2, 3 } })
        gm.exp_(x)
        gm.axpy_(2, x, x)
        return c:to_table(), x:to_table(), gm.asum(x), gm.nrm2(x), gm.dot(x, x)
      end
      local host = table.pack(gm.with_cuda({ enabled = false }, run))
      local dev = table.pack(gm.with_cuda(CUDA, run))
      local tol = ctype == "float" and 1e-5 or 1e-12
      local function near(p, q) return math.abs(p - q) <= tol * math.max(1, math.abs(p)) end
      for i = 3, 5 do assert.is_true(near(host[i], dev[i]), ctype) end
      for r = 1, 3 do for k = 1, 2 do assert.is_true(near(host[1][r][k], dev[1][r][k])) end end
      for k = 1, 5 do assert.is_true(near(host[2][k], dev[2][k])) end
    end
  end)

  it("draws cuRAND samples in range, seeded by random_seed #outermost", function()
    if not need_gpu() then return end
    local function draw(seed)
      return gm.with_cuda({ backend = "cuda", random_seed = seed }, function()
        local m = gm.mat(10000, { ctype = "float" })
        gm.uniform_random_(m, { limit = 2 })
        return m:to_table()
      end)
    end
    local a, b, c = draw(1), draw(1), draw(2)
    assert.are.same(a, b)
    assert.are_not.same(a, c)
    for _, v in ipairs(a) do assert.is_true(v >= 0 and v < 2) end
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
