-- Direct element access (m[k], m[k] = v, mref, set and their row-major
-- forms): the binding keeps a host pointer certified by the vec's
-- generation (core/model/vec.h, gm_vec_direct_open) and skips watch/unwatch.
-- These tests change a mat's facets, shape or memory behind that cached
-- pointer in every way the API allows and check that the next access sees
-- exactly what the watched path would: new values, new bounds, errors.
-- Device ops run on the emulated device, so this runs without a GPU.
local gm = require "gpumat"

local EMU = { backend = "emulated" }
local function on_device(fn) return gm.with_cuda(EMU, fn) end

local function h2d()
  return gm.counters().n_memcpy_host_to_device
end

describe("direct element access", function()
  -- Inside one context: leaving with_cuda destroys the cuda facets and
  -- brings the host facet up to date, which would hide a stale cache.
  for _, ct in ipairs({ "float", "double" }) do
    it("reads see device writes and device ops see direct writes (" .. ct .. ")", function()
      on_device(function()
        local m = gm.mat(4, { ctype = ct, initial_element = 1 })
        assert.are.equal(1, m[2]) -- opens direct access
        m[2] = 3 -- direct write (the host facet is the only up-to-date one)
        local before = h2d()
        gm.scal_(2, m) -- must copy the direct write to the device
        assert.are.equal(before + 1, h2d())
        assert.are.equal("Cf", m:facets())
        assert.are.equal(6, m[2]) -- from the device, not the cached host value 3
        assert.are.equal("CF", m:facets())
        gm.scal_(10, m)
        assert.are.equal(60, m[2]) -- not the cached host value 6
        m[1] = -1
        m:set_row_major(3, 0.5)
        assert.are.equal(0.5, m:row_major_mref(3))
        assert.are.equal(-1, m:mref(1))
        gm.scal_(2, m)
        assert.are.equal(120, m:mref(2))
        assert.are.same({ -2, 120, 1, 40 }, m:to_table())
      end)
    end)
  end

  it("a write after a device op invalidates the device copy", function()
    on_device(function()
      local m = gm.mat(3, { initial_element = 1 })
      assert.are.equal(1, m[3])
      gm.scal_(3, m) -- the cuda facet is now the only up-to-date one
      m[1] = 7 -- watched write: the host facet becomes the only up-to-date one
      m[2] = 8 -- direct write
      assert.are.equal("cF", m:facets())
      gm.scal_(1, m)
      assert.are.same({ 7, 8, 3 }, m:to_table())
    end)
  end)

  it("views of one storage share it through their own caches", function()
    local m = gm.mat(6, { initial_element = 0 })
    local v = gm.mat(3, { displaced_to = m, displacement = 2 })
    assert.are.equal(0, v[1])
    assert.are.equal(0, m[3])
    m[3] = 5
    assert.are.equal(5, v[1])
    v[3] = 9
    assert.are.equal(9, m[5])
    assert.are.equal(9, v:mref(3))
  end)

  it("reshaping and displacing change the bounds and the element seen", function()
    local m = gm.mat(6, { initial_element = 0 })
    for k = 1, 6 do m[k] = k end
    assert.are.equal(6, m[6])
    m:reshape_({ 2, 2 })
    assert.are.equal(4, m[4])
    assert.is_nil(m[5]) -- past the end: nil, as a Lua sequence
    assert.has_error(function() m[5] = 1 end, "bad argument #2 to 'set' (index 5 is out of range 1..4)")
    assert.are.equal(4, m:mref(2, 2))
    m:reshape_and_displace_(3, 3)
    assert.are.equal(4, m[1])
    m[3] = 60
    m:reshape_and_displace_(6, 0)
    assert.are.same({ 1, 2, 3, 4, 5, 60 }, m:to_table())
  end)

  it("a freed mat raises instead of reading its old storage", function()
    local m = gm.mat(2, { initial_element = 4 })
    assert.are.equal(4, m[1])
    m:free()
    assert.has_error(function() return m[1] end, "bad argument #1 to 'mref' (attempt to use a freed mat)")
    assert.has_error(function() m[1] = 2 end, "bad argument #1 to 'set' (attempt to use a freed mat)")
  end)

  it("facet rules still apply: a facet being written blocks element access", function()
    on_device(function()
      local m = gm.mat(2, { initial_element = 1 })
      assert.are.equal(1, m[1])
      gm.with_facet(m, "cuda", "io", function()
        assert.has_error(function() return m[1] end)
        assert.has_error(function() m[1] = 3 end)
      end)
      assert.are.equal(1, m[1]) -- written by nobody: the contents came back from the device
    end)
  end)

  it("memory returned to an alloc cache raises", function()
    local cache <close> = gm.alloc_cache()
    local leaked
    gm.cached(cache, function()
      leaked = gm.mat(4, { initial_element = 2 })
      assert.are.equal(2, leaked[1]) -- direct access opened inside the scope
      leaked[2] = 3
      assert.are.equal(3, leaked[2])
    end)
    assert.has_error(function() return leaked[1] end, "mref: memory returned to an alloc cache")
    assert.has_error(function() leaked[1] = 1 end, "set: memory returned to an alloc cache")
  end)

  it("a released buffer fails the mat made from it", function()
    local b = gm.make_foreign_array(3, { element_type = "double", initial_element = 1 })
    local m = gm.mat_from_buffer(b)
    assert.are.equal(1, m[1])
    m[2] = 5
    assert.are.equal(5, gm.row_major_bref(b, 2)) -- one memory
    assert.are.equal(1, gm.deref_buffer(b))
    assert.are.equal(5, m[2])
    assert.is_nil(gm.deref_buffer(b)) -- the mat's count too: released for all
    assert.has_error(function() return m[1] end, "mref: buffer released")
    assert.has_error(function() m[1] = 1 end, "set: buffer released")
  end)

  it("bad keys and values keep their errors", function()
    local m = gm.mat(2)
    assert.has_error(function() return m[1.5] end, "bad argument #2 to 'mref' (index must be an integer, got number)")
    assert.has_error(function() m[1] = "x" end, "bad argument #3 to 'set' (number expected, got string)")
    assert.is_nil(m[0])
    assert.has_error(function() m[0] = 1 end, "bad argument #2 to 'set' (index 0 is out of range 1..2)")
    assert.are.equal(0, m[2.0])
  end)
end)
