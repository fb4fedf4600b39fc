-- Staging arrays: gm.mat(dims, {pinned = true}) has page-locked
-- host memory from birth (foreign and cuda_host facets are one block), so
-- host<->device copies need no staging copy; {mapped = true} lets device
-- ops work in place on that memory (no cuda facet memory, zero copies);
-- without a device both are ordinary host mats; watchers keep a staging
-- mat from being touched while a copy of it is in flight.
local gm = require "gpumat"

local EMU = { backend = "emulated" }
local function on_device(fn) return gm.with_cuda(EMU, fn) end

local function copies()
  local c = gm.counters()
  return c.n_memcpy_host_to_device, c.n_memcpy_device_to_host
end

describe("staging mats", function()
  it("pinned: foreign and cuda_host facets from birth, page-locked memory #outermost", function()
    on_device(function()
      local pinned0 = gm.counters().pinned_host_bytes
      local m = gm.mat({ 4, 4 }, { pinned = true, initial_element = 1 })
      assert.are.equal("FH", m:facets())
      assert.is_true(gm.counters().pinned_host_bytes >= pinned0 + 128)
      assert.are.equal("pinned", gm.ensure(m, "pinned"):mem_type())
      -- a device op copies the data in once, reading back once: direct
      -- copies from and to the page-locked block
      local h2d, d2h = copies()
      gm.scal_(3, m)
      assert.are.equal(3, gm.mref(m, 4, 4))
      local h2d1, d2h1 = copies()
      assert.are.equal(h2d + 1, h2d1)
      assert.are.equal(d2h + 1, d2h1)
      assert.are.equal(0, gm.counters().n_host_registrations) -- nothing registered later
    end)
  end)

  it("mapped: device ops work in place with zero copies", function()
    on_device(function()
      local h2d, d2h = copies()
      local x = gm.mat({ 3, 3 }, { mapped = true, initial_element = 2 })
      local y = gm.mat({ 3, 3 }, { mapped = true, initial_element = 1 })
      gm.scal_(3, x)
      gm.axpy_(2, x, y)
      local z = gm.mat({ 3, 3 }, { mapped = true })
      gm.gemm_(1, x, y, 0, z)
      assert.are.equal(13, gm.mref(y, 2, 2))
      assert.are.equal(3 * 6 * 13, gm.mref(z, 1, 3))
      gm.set(y, 1, 1, 0) -- host write, then a device op: still no copy
      gm.scal_(2, y)
      assert.are.equal(0, gm.mref(y, 1, 1))
      assert.are.equal(26, gm.mref(y, 3, 3))
      local h2d1, d2h1 = copies()
      assert.are.equal(h2d, h2d1)
      assert.are.equal(d2h, d2h1)
      assert.are.equal("CFH", x:facets())
      -- the device view of a mapped mat is the host memory itself
      local dv = gm.ensure(y, "device")
      assert.are.equal("device", dv:mem_type())
      assert.are.equal(26, gm.bref(dv, 3, 3))
    end)
  end)

  it("mapped: the device's pool gives no block for the cuda facet #outermost", function()
    on_device(function()
      collectgarbage()
      collectgarbage()
      gm.collect()
      local before = gm.counters().device_bytes_in_use
      local x = gm.mat(100000, { mapped = true, initial_element = 1 })
      gm.scal_(2, x)
      assert.are.equal(before, gm.counters().device_bytes_in_use)
      assert.are.equal(2, gm.mref(x, 100000))
    end)
  end)

  it("without a device both options give ordinary host mats #host", function()
    local a = gm.mat(3, { pinned = true, initial_element = 1 })
    local b = gm.mat(3, { mapped = true, initial_element = 2 })
    assert.are.equal("-", a:facets())
    gm.axpy_(1, a, b)
    assert.are.equal(3, gm.mref(b, 3))
    assert.are.equal("F", b:facets())
    assert.are.equal("host", gm.ensure(b, "host"):mem_type())
    assert.has_error(function() gm.mat(3, { pinned = "yes" }) end)
  end)

  it("a staging mat cannot be written while a copy of it is in flight", function()
    on_device(function()
      local m = gm.mat(8, { pinned = true, initial_element = 1 })
      -- an in-flight copy reads the cuda_host facet: the host block is watched
      gm.with_facet(m, "cuda_host", "input", function()
        assert.has_error(function() gm.scal_(2, m) end,
          "scal_: cannot write facet 'cuda' while facet 'cuda_host' is being accessed")
      end)
      assert.are.equal(1, gm.mref(m, 8))
      gm.with_facet(m, "cuda", "io", function()
        assert.has_error(function() gm.mref(m, 1) end)
      end)
      gm.scal_(2, m)
      assert.are.equal(2, gm.mref(m, 1))
      -- an asynchronous copy on the copy stream (safe mode): any access
      -- waits for the end of with_syncing_cuda_facets
      m:set(1, 5)
      gm.with_syncing_cuda_facets({ m }, {}, { safe = true }, function()
        assert.has_error(function() gm.set(m, 1, 9) end)
        assert.has_error(function() gm.scal_(2, m) end)
      end)
      gm.scal_(2, m)
      assert.are.equal(10, gm.mref(m, 1))
    end)
  end)
end)
