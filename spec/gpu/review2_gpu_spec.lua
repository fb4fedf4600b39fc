-- The CUDA-only fixes of the second review round (docs/GPU.md, "Review
-- findings, second round") on a real GPU; pending without one.  What the
-- emulated device can show is checked in spec/emulated_kernels_spec.lua.
-- #outermost: each test opens its own context.
-- gpukit: alone (C4 fills the device: tools/gpu/run runs this file by itself)
local gm = require "gpumat"
local need_gpu, CUDA = require("gpu_case")(_ENV)

describe("second review round on a real GPU", function()
  it("C1: sum_ over an empty dimension gives beta * y #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function()
      local y = gm.mat({ 1, 3 }, { initial_contents = { { 1, 2, 3 } } })
      gm.sum_(gm.mat({ 0, 3 }), y, { axis = 1, beta = 2 })
      assert.are.same({ { 2, 4, 6 } }, y:to_table())
      local z = gm.mat(3, { initial_contents = { 1, 2, 3 } })
      gm.sum_(gm.mat({ 3, 0 }), z, { axis = 2, beta = -1 })
      assert.are.same({ -1, -2, -3 }, z:to_table())
    end)
  end)

  it("C3: a device-to-device buffer copy is ordered before the kernels that read it #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function()
      local n = 1 << 24
      local h = gm.make_foreign_array({ n }, { element_type = "float" })
      gm.buffer_fill(h, 1)
      local d1 = gm.make_cuda_array({ n }, { element_type = "float" })
      local d2 = gm.make_cuda_array({ n }, { element_type = "float" })
      gm.copy_full_buffer(h, d1)
      gm.buffer_fill(d2, 0)
      for round = 1, 3 do
        gm.copy_full_buffer(d1, d2) -- 64 MiB device-to-device
        local m = gm.mat_from_buffer(d2, { dims = { n }, ctype = "float" })
        gm.scal_(2, m) -- must see the copied ones, not the previous round's
        assert.are.equal(2 * n, m:sum(), "round " .. round)
      end
    end)
  end)

  it("C5: trimming another device's pool leaves this thread's device current #outermost", function()
    if not need_gpu() then return end
    if gm.device_count() < 2 then
      pending("one CUDA device")
      return
    end
    gm.with_cuda({ backend = "cuda", device_id = 1 }, function()
      local m = gm.mat(1 << 20, { initial_element = 1 })
      gm.scal_(2, m) -- a block on device 1, cached after the context
    end)
    gm.with_cuda({ backend = "cuda", device_id = 0 }, function()
      local a = gm.mat({ 64, 64 }, { initial_element = 1 })
      gm.scal_(1, a)
      gm.collect() -- frees device 1's cached blocks
      local c = gm.mat({ 64, 64 }, { initial_element = 0 })
      gm.gemm_(1, a, a, 0, c) -- cuBLAS and kernels on device 0's stream
      gm.scal_(2, c)
      assert.are.equal(128, gm.mref(c, 64, 64))
    end)
  end)

  it("C7: a pageable source may be rewritten as soon as the copy call returns #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function()
      local n = 1 << 22
      local src = gm.mat(n, { initial_element = 0 })
      local acc = gm.mat(n, { initial_element = 0 })
      gm.scal_(1, acc)
      local expect = 0
      for i = 1, 5 do
        gm.with_cuda({ enabled = false }, function() gm.fill_(i, src) end) -- host write: the next op copies src
        gm.axpy_(1, src, acc) -- H2D of src from pageable memory, then the kernel
        expect = expect + i
      end
      assert.are.equal(expect, gm.mref(acc, n))
      assert.are.equal(expect * n, acc:sum())
    end)
  end)

  it("C4: a scratch array gets memory back from the pool's cache when the device is full #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function()
      local x = gm.mat({ 8, 1 << 20 }, { ctype = "float", initial_element = 1 })
      local y = gm.mat(8, { ctype = "float", initial_element = 0 })
      gm.scal_(1, x)
      gm.scal_(1, y)
      -- fill the device with blocks, then free them: the pool caches them
      local hold = {}
      while true do
        local ok, m = pcall(gm.mat, 1 << 26, { ctype = "float", initial_element = 0 })
        if not ok then break end
        local fine = pcall(gm.scal_, 1, m)
        if not fine then break end
        hold[#hold + 1] = m
      end
      for _, m in ipairs(hold) do m:free() end
      hold = nil
      gm.scal_(1, gm.mat(8, { ctype = "float", initial_element = 0 })) -- drains the queue into the cache
      gm.sum_(x, y, { axis = 2 }) -- scratch from cudaMallocAsync: trims the cache and retries
      assert.are.equal(1 << 20, gm.mref(y, 8))
      assert.are.equal(8 * (1 << 20), x:sum())
    end)
    -- the pool still caches nearly the whole device: give it back, or the
    -- specs after this one run with almost no free device memory
    gm.collect()
  end)
end)
