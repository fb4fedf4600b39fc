-- Element access when the direct path (spec/element_access_spec.lua) does
-- not apply or has to re-check: gm_mat_get/gm_mat_put's locked fast path
-- (gm_vec_element_quick) and the watched path behind it.  m[k], m[k] = v,
-- mref and set must fall back whenever the host copy stops being usable
-- (device writes, reshaping, freeing, alloc-cache scopes, buffer release,
-- open facet accesses), and their writes must leave the facets exactly as
-- a watched write would (a write to a "CF" mat makes the device copy stale).
local gm = require "gpumat"

local EMU = { backend = "emulated" }


describe("element access fallbacks", function()
  for _, sync in ipairs { true, false, "maybe" } do
    it("reads and writes every element (synchronization " .. tostring(sync) .. ")", function()
      local m = gm.mat({ 3, 4 }, { initial_element = 0, synchronization = sync })
      for k = 1, 12 do m[k] = k * 1.5 end
      for k = 1, 12 do assert.are.equal(k * 1.5, m[k]) end
      for i = 1, 3 do
        for j = 1, 4 do
          assert.are.equal(((i - 1) * 4 + j) * 1.5, m:mref(i, j))
          m:set(i, j, -i * 10 - j)
          assert.are.equal(-i * 10 - j, m[(i - 1) * 4 + j])
          assert.are.equal(-i * 10 - j, m[{ i, j }])
        end
      end
    end)
  end

  it("rounds through the ctype like the full path", function()
    local f = gm.mat(4, { ctype = "float", initial_element = 0 })
    f[1] = 0.1
    assert.are.equal(gm.coerce_to_ctype(0.1, "float"), f[1])
    assert.are_not.equal(0.1, f[1])
    f[2] = 1e300 -- overflows float
    assert.are.equal(math.huge, f[2])
    local d = gm.mat(2, { initial_element = 0 })
    d[1] = 0.1
    assert.are.equal(0.1, d[1])
  end)

  it("accepts float keys with an integer value and rejects the others", function()
    local m = gm.mat(4, { initial_contents = { 1, 2, 3, 4 } })
    assert.are.equal(2, m[2.0])
    m[3.0] = 7
    assert.are.equal(7, m[3])
    assert.has_error(function() return m[1.5] end, "bad argument #2 to 'mref' (index must be an integer, got number)")
    assert.has_error(function() m[1.5] = 1 end, "bad argument #2 to 'set' (index must be an integer, got number)")
    assert.is_nil(m[0]) -- out of range: nil, as a Lua sequence
    assert.is_nil(m[5.0])
    assert.has_error(function() m[5] = 1 end, "bad argument #2 to 'set' (index 5 is out of range 1..4)")
    assert.has_error(function() m[-1] = 1 end, "bad argument #2 to 'set' (index -1 is out of range 1..4)")
    assert.has_error(function() m[1] = "x" end, "bad argument #3 to 'set' (number expected, got string)")
    assert.has_error(function() m[math.mininteger] = 1 end)
    assert.is_nil(m[math.maxinteger])
    assert.has_error(function() return m[1 / 0] end)
    assert.are.same({ 1, 2, 7, 4 }, m:to_table()) -- the failed writes changed nothing
  end)

  it("checks the object when the metamethods are called directly", function()
    local mt = debug.getmetatable(gm.mat(1))
    assert.has_error(function() mt.__index(io.stdout, 1) end,
      "bad argument #1 to 'mref' (gpumat.mat expected, got userdata)")
    assert.has_error(function() mt.__index({}, 1) end, "bad argument #1 to 'mref' (gpumat.mat expected, got table)")
    assert.has_error(function() mt.__newindex(io.stdout, 1, 2) end,
      "bad argument #1 to 'set' (gpumat.mat expected, got userdata)")
    assert.has_error(function() mt.__newindex(42, 1, 2) end, "bad argument #1 to 'set' (gpumat.mat expected, got number)")
    -- a userdata of another type that shares the mat metatable's methods
    local fake = setmetatable({}, { __index = mt.__index })
    assert.has_error(function() return fake[1] end, "bad argument #1 to 'mref' (gpumat.mat expected, got table)")
  end)

  it("writes through views of the same storage are seen by the others", function()
    local base = gm.mat(6, { initial_contents = { 1, 2, 3, 4, 5, 6 } })
    local view = gm.mat(2, { displaced_to = base, displacement = 3 })
    assert.are.equal(4, view[1])
    view[2] = 50
    assert.are.equal(50, base[5])
    base[4] = 40
    assert.are.equal(40, view[1])
  end)

  it("falls back after a device write, and its writes make the device facet stale", function()
    gm.with_cuda(EMU, function()
      local m = gm.mat(8, { initial_element = 1 })
      m[3] = 5 -- host only
      gm.scal_(2, m) -- device facet created, written: host stale
      assert.are.equal("Cf", m:facets())
      assert.are.equal(10, m[3]) -- refreshed from the device
      assert.are.equal(2, m[1])
      assert.are.equal("CF", m:facets())
      m[1] = 7 -- fast path: the device copy is now stale, like the full path leaves it
      assert.are.equal("cF", m:facets())
      gm.scal_(3, m) -- the device sees the write
      assert.are.equal(21, m[1])
      assert.are.equal(30, m[3])
      m:set(2, 100)
      assert.are.equal("cF", m:facets())
      gm.scal_(0.5, m)
      assert.are.equal(50, m:mref(2))
      assert.are.same({ 10.5, 50, 15, 3, 3, 3, 3, 3 }, m:to_table())
    end)
  end)

  it("stays correct for a mapped staging mat and a managed facet", function()
    gm.with_cuda(EMU, function()
      local s = gm.mat(4, { initial_element = 2, mapped = true })
      s[1] = 3
      gm.scal_(2, s)
      assert.are.equal(6, s[1])
      s[2] = 9
      gm.scal_(2, s)
      assert.are.same({ 12, 18, 8, 8 }, s:to_table())
    end)
  end)

  it("inside an open facet access takes the full path (and its conflict checks)", function()
    local m = gm.mat(4, { initial_element = 1 })
    m[1] = 2
    gm.with_facet(m, "foreign", "input", function()
      assert.are.equal(2, m[1]) -- nested read by the owner
    end)
    gm.with_cuda(EMU, function()
      local d = gm.mat(4, { initial_element = 1 })
      d[1] = 4
      local ok, err = pcall(gm.with_facet, d, "cuda", "output", function() return d[1] end)
      assert.is_false(ok)
      assert.matches("cannot read facet 'foreign' while facet 'cuda' is being written", tostring(err), 1, true)
      local ok2, err2 = pcall(gm.with_facet, d, "cuda", "input", function() d[1] = 3 end)
      assert.is_false(ok2)
      assert.matches("cannot write facet 'foreign' while facet 'cuda' is being accessed", tostring(err2), 1, true)
    end)
  end)

  it("follows reshape_, displace_ and free", function()
    local m = gm.mat(6, { initial_contents = { 1, 2, 3, 4, 5, 6 } })
    assert.are.equal(6, m[6])
    m:reshape_({ 2, 2 })
    assert.are.equal(4, m[4])
    assert.are.equal(4, m:mref(2, 2))
    assert.is_nil(m[5])
    assert.has_error(function() m[6] = 0 end, "bad argument #2 to 'set' (index 6 is out of range 1..4)")
    m:displace_(2)
    assert.are.equal(3, m[1])
    m[4] = 60
    m:reshape_and_displace_({ 6 }, 0)
    assert.are.same({ 1, 2, 3, 4, 5, 60 }, m:to_table())
    m:free()
    assert.has_error(function() return m[1] end, "bad argument #1 to 'mref' (attempt to use a freed mat)")
    assert.has_error(function() m[1] = 2 end, "bad argument #1 to 'set' (attempt to use a freed mat)")
    assert.has_error(function() return m:mref(1) end)
  end)

  it("raises once the memory went back to an alloc cache", function()
    local cache <close> = gm.alloc_cache()
    local leaked, view
    gm.cached(cache, function()
      leaked = gm.mat(4, { initial_element = 1 })
      leaked[2] = 5 -- fast path while the scope is open
      assert.are.equal(5, leaked[2])
      view = gm.mat(2, { displaced_to = leaked, displacement = 1 })
      assert.are.equal(5, view[1])
    end)
    assert.has_error(function() return leaked[1] end, "mref: memory returned to an alloc cache")
    assert.has_error(function() leaked[1] = 3 end, "set: memory returned to an alloc cache")
    assert.has_error(function() return view[1] end, "mref: memory returned to an alloc cache")
    assert.has_error(function() return leaked:mref(2) end, "mref: memory returned to an alloc cache")
    -- the memory is reused by the next scope; the leaked mats still raise
    gm.cached(cache, function()
      local fresh = gm.mat(4, { initial_element = 7 })
      fresh[1] = 8
      assert.are.equal(8, fresh[1])
      assert.has_error(function() leaked[1] = 3 end, "set: memory returned to an alloc cache")
      assert.are.equal(8, fresh[1])
    end)
  end)

  it("raises once the buffer under the mat is released", function()
    local b = gm.make_foreign_array(4, { element_type = "double", initial_element = 3 })
    local m = gm.mat_from_buffer(b)
    assert.are.equal(3, m[1])
    m[2] = 4
    assert.are.equal(4, gm.row_major_bref(b, 2))
    assert.are.equal(1, gm.deref_buffer(b)) -- the mat's count keeps the memory
    assert.are.equal(4, m[2])
    assert.is_nil(gm.deref_buffer(b)) -- released for both
    assert.has_error(function() return m[1] end, "mref: buffer released")
    assert.has_error(function() m[1] = 1 end, "set: buffer released")
    assert.has_error(function() return m:mref(1) end, "mref: buffer released")
  end)

  it("a write via a GC finalizer between accesses is seen", function()
    local m = gm.mat(4, { initial_element = 0 })
    m[1] = 1
    setmetatable({}, { __gc = function() m[1] = 2 end })
    collectgarbage()
    collectgarbage()
    assert.are.equal(2, m[1])
  end)
end)
