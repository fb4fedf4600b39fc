-- The emulated device is asynchronous like a GPU (docs/API.md, "The
-- emulated device is asynchronous"): its compute and copy streams are
-- queues run by worker threads, an op returns once queued, and the host
-- waits where CUDA code must.  gm.emulated_device{async = "lazy"} runs
-- queued work only when something waits for it, so every check below that
-- reads a result would read stale data if the library skipped a wait.
-- Also: mapped and managed mats read after a device op (review A1, C8), the
-- copy stream ordered after the compute stream (C2), and the sticky error
-- failing allocations, copies and reads (C9).
-- #outermost: each test opens its own context.
local gm = require "gpumat"

local EMU = { backend = "emulated" }

local function with_mode(mode, fn)
  local old = gm.emulated_device().async
  gm.emulated_device({ async = mode })
  local ok, err = pcall(fn)
  gm.emulated_device({ async = old })
  assert(ok, err)
end

local function lazy(fn) return with_mode("lazy", function() gm.with_cuda(EMU, fn) end) end

describe("emulated device streams", function()
  it("report and switch the three modes", function()
    local old = gm.emulated_device().async
    for _, mode in ipairs({ false, "lazy", true }) do
      gm.emulated_device({ async = mode })
      assert.are.equal(mode, gm.emulated_device().async)
    end
    gm.emulated_device({ async = old })
    assert.has_error(function() gm.emulated_device({ async = "eager" }) end,
      "bad argument #1 to 'emulated_device' (option 'async' must be true, false or \"lazy\", got eager)")
  end)

  it("lazy: an op returns before its work ran; a host read waits and sees the result #outermost", function()
    lazy(function()
      local x = gm.mat(1000, { ctype = "double", initial_element = 2 })
      x[1] = 2 -- on the host; the device copy follows at the op
      gm.scal_(3, x)
      assert.is_true(gm.emulated_device().queued >= 1)
      assert.are.equal(6, x[1000])
      assert.are.equal(0, gm.emulated_device().queued)
    end)
  end)

  it("inline: nothing stays queued #outermost", function()
    with_mode(false, function()
      gm.with_cuda(EMU, function()
        local x = gm.mat(100, { initial_element = 1 })
        gm.scal_(5, x)
        assert.are.equal(0, gm.emulated_device().queued)
        assert.are.equal(5, x[100])
      end)
    end)
  end)

  it("lazy: gm.synchronize runs everything queued #outermost", function()
    lazy(function()
      local x = gm.mat({ 20, 20 }, { ctype = "double", initial_element = 1 })
      local y = gm.mat({ 20, 20 }, { ctype = "double" })
      gm.gemm_(1, x, x, 0, y)
      gm.add_scalar_(1, y)
      assert.is_true(gm.emulated_device().queued >= 2)
      gm.synchronize()
      assert.are.equal(0, gm.emulated_device().queued)
      assert.are.equal(21, y[1])
      assert.are.equal(21, y[400])
    end)
  end)

  it("results of every mode agree with the host #outermost", function()
    local function run()
      local a = gm.mat({ 3, 4 }, { ctype = "double", initial_contents = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 9, 10, 11, 12 } } })
      local b = gm.mat({ 4, 2 }, { ctype = "double", initial_contents = { { 1, 0 }, { 0, 1 }, { 1, 1 }, { 2, -1 } } })
      local c = gm.mat({ 3, 2 }, { ctype = "double" })
      gm.gemm_(1, a, b, 0, c)
      gm.scal_(2, c)
      return c:to_table()
    end
    local host = run()
    for _, mode in ipairs({ false, true, "lazy" }) do
      with_mode(mode, function()
        gm.with_cuda(EMU, function() assert.are.same(host, run()) end)
      end)
    end
    assert.are.same({ { 24, 2 }, { 56, 10 }, { 88, 18 } }, host)
  end)

  it("a queued reduction's result reaches the host (the launcher waits) #outermost", function()
    lazy(function()
      local x = gm.mat(5000, { ctype = "double", initial_element = 0.5 })
      gm.scal_(4, x)
      assert.are.equal(10000, gm.asum(x))
    end)
  end)
end)

describe("review A1, C8: mats over mapped or managed memory wait for device work", function()
  it("a mapped mat read after scal_ sees the scaled values #outermost", function()
    lazy(function()
      local x = gm.mat(1000, { mapped = true, initial_element = 2 })
      gm.scal_(3, x)
      assert.are.equal(6, gm.mref(x, 1000))
      assert.are.equal(6, x[1])
    end)
  end)

  it("the host waits for the op on the mat (an event), not for later work #outermost", function()
    lazy(function()
      local x = gm.mat(1000, { mapped = true, initial_element = 2 })
      local y = gm.mat(1000, { initial_element = 0 })
      gm.fill_(1, y)
      gm.synchronize()
      gm.scal_(3, x)
      gm.fill_(7, y)                   -- queued after: not needed to read x
      assert.are.equal(6, x[10])
      assert.are.equal(1, gm.emulated_device().queued)
      assert.are.equal(7, y[10])
      assert.are.equal(0, gm.emulated_device().queued)
    end)
  end)

  it("a managed mat read after scal_ sees the scaled values; a host write after a queued read waits #outermost", function()
    lazy(function()
      local x = gm.mat(1000, { initial_element = 2 })
      gm.with_facet(x, "managed", "io", function() end)
      gm.scal_(3, x)
      assert.are.equal(6, x[7])
      local y = gm.mat(1000, { initial_element = 0 })
      gm.axpy_(1, x, y)  -- queued: reads x in place
      x[7] = 100         -- must wait for the axpy first
      assert.are.equal(6, y[7])
      assert.are.equal(100, x[7])
    end)
  end)
end)

describe("review C8: managed memory is prefetched to the device before device work", function()
  it("each device op on a managed mat asks for a prefetch; an ordinary mat does not #outermost", function()
    lazy(function()
      local x = gm.mat(1000, { initial_element = 2 })
      gm.with_facet(x, "managed", "io", function() end)
      local plain = gm.mat(1000, { initial_element = 1 })
      gm.scal_(1, plain)
      local before = gm.emulated_device().prefetches
      gm.scal_(3, x)
      gm.axpy_(1, x, plain)
      local after = gm.emulated_device().prefetches
      assert.are.equal(before + 2, after) -- scal_ (x) and axpy_ (x); plain is not managed
      assert.are.equal(7, plain[5])
    end)
  end)
end)

describe("review A1: buffers the device uses in place wait for it", function()
  it("bref of a mapped or managed buffer after a queued op on a mat over it #outermost", function()
    lazy(function()
      local p = gm.make_cuda_host_array(100, { flags = { "mapped" }, element_type = "double", initial_element = 1 })
      gm.scal_(5, gm.mat_from_buffer(p))
      assert.are.equal(5, gm.bref(p, 7))
      local g = gm.make_managed_array(100, { element_type = "double", initial_element = 2 })
      gm.scal_(3, gm.mat_from_buffer(g))
      assert.are.equal(6, gm.bref(g, 50))
    end)
  end)
end)

describe("review C2: the copy stream waits for the compute stream", function()
  it("a reused pool block is not overwritten before queued kernels read it #outermost", function()
    local old = gm.foreign_array_strategy
    gm.foreign_array_strategy = "cuda_host"
    local ok, err = pcall(lazy, function()
      local n = 4096
      local a = gm.mat(n, { ctype = "double", initial_element = 1 })
      gm.fill_(1, a)
      local y = gm.mat(n, { ctype = "double", initial_element = 0 })
      gm.fill_(0, y)
      local z = gm.mat(n, { ctype = "double", initial_element = 0 })
      gm.fill_(0, z)
      gm.axpy_(1, a, y)   -- queued: reads a's block
      a:free()            -- the block goes back to the pool
      local b = gm.mat(n, { ctype = "double", initial_element = 0 })
      gm.with_facet(b, "cuda_host", "output", function() end)
      b[1] = 50
      gm.axpy_(1, b, z)   -- H2D of b into the reused block, queued on the copy stream
      b[2] = 7            -- a host write waits for that copy (only): it must not land before the first axpy
      -- without the wait the copy lands first, and the queued fill of a
      -- (or the first axpy's read) meets b's data in the shared block
      assert.are.equal(1, y[1]) -- the axpy read a's values, not b's
      assert.are.equal(1, y[n])
      assert.are.equal(50, z[1])
    end)
    gm.foreign_array_strategy = old
    assert(ok, err)
  end)
end)

describe("review C9: the sticky error fails every device call", function()
  after_each(function() gm.emulated_device({ sticky_error = false }) end)

  it("allocations, copies, ensure, bref and device-only reads fail #outermost", function()
    gm.with_cuda(EMU, function()
      local m = gm.mat(8, { initial_element = 1 })
      local dev = gm.mat(8, { initial_element = 2 })
      gm.fill_(3, dev) -- device-only now
      local d = gm.make_cuda_array(8, { element_type = "double" })
      local h = gm.make_cuda_host_array(8, { element_type = "double", initial_element = 0 })
      m[1] = 5 -- its device facet (if any) is stale: ensure needs a copy
      gm.synchronize()
      gm.emulated_device({ sticky_error = true })
      local failed = {}
      local calls = {
        ensure = function() gm.ensure(m, "device") end,
        read = function() return dev[1] end,
        bref = function() return gm.bref(d, 1) end,
        copy_full_buffer = function() gm.copy_full_buffer(h, d) end,
        alloc = function() gm.make_cuda_array(1 << 20, { element_type = "double" }) end,
        synchronize = function() gm.synchronize() end,
      }
      for name, f in pairs(calls) do
        local ok, err = pcall(f)
        if not ok and tostring(err):find("sticky error", 1, true) then failed[#failed + 1] = name end
      end
      gm.emulated_device({ sticky_error = false })
      table.sort(failed)
      assert.are.same({ "alloc", "bref", "copy_full_buffer", "ensure", "read", "synchronize" }, failed)
      assert.are.equal(3, dev[1])
      gm.copy_full_buffer(h, d)
      assert.are.equal(0, gm.bref(d, 1))
    end)
  end)
end)
