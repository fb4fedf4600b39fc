-- Memory spaces: gm.ensure gives a non-owning view when x is
-- already in the requested memory type, ctype and layout, an owning copy
-- otherwise; for mats it goes through the facet machinery (a stale facet
-- costs one counted copy, an up-to-date one none; a facet reference is
-- held while the view lives; direction io invalidates the other facets).
-- col_major copies, b:mem_type(), b:layout(), memory_type_dispatch.
local gm = require "gpumat"

local EMU = { backend = "emulated" }
local function on_device(fn) return gm.with_cuda(EMU, fn) end

local function copies()
  local c = gm.counters()
  return c.n_memcpy_host_to_device, c.n_memcpy_device_to_host
end

local function flat(b)
  local t = {}
  for k = 1, gm.buffer_size(b) do t[k] = gm.row_major_bref(b, k) end
  return t
end

describe("ensure on mats", function()
  it("host: a view of the host facet, no copy, writes visible in the mat #host", function()
    local m = gm.mat({ 2, 3 }, { initial_contents = { { 1, 2, 3 }, { 4, 5, 6 } } })
    local b = gm.ensure(m, "host")
    assert.is_false(b:is_owning())
    assert.are.equal("host", b:mem_type())
    assert.are.equal("row_major", b:layout())
    assert.are.equal("double", gm.buffer_element_type(b))
    assert.are.same({ 2, 3 }, gm.buffer_dimensions(b))
    assert.are.equal(6, gm.bref(b, 2, 3))
    assert.are.equal(1, m:find_facet("foreign").n_references)
    gm.set_bref(b, 1, 2, 20)
    assert.are.equal(20, gm.mref(m, 1, 2))
    gm.deref_buffer(b) -- ends the view: the facet reference goes
    assert.are.equal(0, m:find_facet("foreign").n_references)
    assert.has_error(function() gm.bref(b, 1, 1) end, "bref: buffer released")
  end)

  it("a view of a displaced mat starts at its first element #host", function()
    local base = gm.mat(6, { initial_contents = { 1, 2, 3, 4, 5, 6 } })
    local v = gm.mat(3, { displaced_to = base, displacement = 2 })
    assert.are.same({ 3, 4, 5 }, flat(gm.ensure(v, "host")))
  end)

  it("device: copies a stale facet once, then nothing while it is up to date #outermost", function()
    on_device(function()
      local m = gm.mat({ 2, 2 }, { initial_contents = { { 1, 2 }, { 3, 4 } } })
      local h2d, d2h = copies()
      local d = gm.ensure(m, "device")
      assert.are.equal("device", d:mem_type())
      assert.is_false(d:is_owning())
      assert.are.equal(h2d + 1, (copies()))
      assert.are.equal(1, m:find_facet("cuda").n_references)
      local d2 = gm.ensure(m, "device")
      assert.are.equal(h2d + 1, (copies()))
      assert.are.equal(2, m:find_facet("cuda").n_references)
      -- bref on device memory is one counted copy of one element
      assert.are.equal(4, gm.bref(d2, 2, 2))
      local _, d2h1 = copies()
      assert.are.equal(d2h + 1, d2h1)
      -- the facet reference keeps the cuda facet through a barrier
      gm.with_facet_barrier({ destroys = { "cuda" } }, function() gm.mat(1) end)
      assert.is_truthy(m:find_facet("cuda"))
      d, d2 = nil, nil
      collectgarbage()
      collectgarbage()
      assert.are.equal(0, m:find_facet("cuda").n_references)
    end)
  end)

  it("direction io invalidates the other facets, so writes through the view are seen", function()
    on_device(function()
      local m = gm.mat(3, { initial_element = 1 })
      assert.are.equal(1, gm.mref(m, 1)) -- host facet exists and is up to date
      local d = gm.ensure(m, "device", { direction = "io" })
      assert.are.equal("Cf", m:facets())
      gm.set_row_major_bref(d, 2, 7)
      local _, d2h = copies()
      assert.are.equal(7, gm.mref(m, 2))
      local _, d2h1 = copies()
      assert.are.equal(d2h + 1, d2h1)
    end)
  end)

  it("another ctype or col_major gives an owning copy", function()
    local m = gm.mat({ 2, 3 }, { initial_contents = { { 1, 2, 3 }, { 4, 5, 6 } } })
    local f = gm.ensure(m, "host", { ctype = "float" })
    assert.is_true(f:is_owning())
    assert.are.equal("float", gm.buffer_element_type(f))
    assert.are.same({ 1, 2, 3, 4, 5, 6 }, flat(f))
    local i = gm.ensure(m, "host", { ctype = "int16" })
    assert.are.same({ 1, 2, 3, 4, 5, 6 }, flat(i))
    gm.set_bref(f, 1, 1, 100) -- a copy: the mat is unchanged
    assert.are.equal(1, gm.mref(m, 1, 1))
    local c = gm.ensure(m, "host", { layout = "col_major" })
    assert.is_true(c:is_owning())
    assert.are.equal("col_major", c:layout())
    assert.are.same({ 2, 3 }, gm.buffer_dimensions(c))
    assert.are.equal(6, gm.bref(c, 2, 3))
    assert.are.equal(4, gm.bref(c, 2, 1))
    local file = io.tmpfile()
    gm.write_buffer(c, file) -- memory order: columns first
    file:seek("set")
    local vals = { string.unpack("<dddddd", file:read("a")) }
    vals[7] = nil
    assert.are.same({ 1, 4, 2, 5, 3, 6 }, vals)
    -- back to row-major through copy_full_buffer
    local r = gm.make_foreign_array({ 2, 3 }, { element_type = "double" })
    gm.copy_full_buffer(c, r)
    assert.are.same({ 1, 2, 3, 4, 5, 6 }, flat(r))
    local half = gm.mat(1, { initial_element = 0.5 })
    assert.has_error(function() gm.ensure(half, "host", { ctype = "int32" }) end,
      "ensure: element 1 (0.5) is not a value of int32")
  end)

  it("pinned and managed need a device; without a context they raise #host", function()
    local m = gm.mat(2)
    assert.has_error(function() gm.ensure(m, "device") end,
      "ensure: memory type 'device' needs an active cuda context (with_cuda)")
    assert.has_error(function() gm.ensure(m, "pinned") end,
      "ensure: memory type 'pinned' needs an active cuda context (with_cuda)")
    assert.has_error(function() gm.ensure(m, "sideways") end)
    assert.has_error(function() gm.ensure(m, "host", { layout = "diagonal" }) end,
      "bad argument #3 to 'ensure' (option 'layout' must be \"row_major\" or \"col_major\")")
    assert.has_error(function() gm.ensure(m, "host", { direction = "output" }) end,
      "bad argument #3 to 'ensure' (option 'direction' must be \"input\" or \"io\")")
  end)

  it("pinned: the cuda_host facet; managed: the managed facet", function()
    on_device(function()
      local m = gm.mat(3, { initial_contents = { 1, 2, 3 } })
      local p = gm.ensure(m, "pinned")
      assert.are.equal("pinned", p:mem_type())
      assert.is_false(p:is_owning())
      assert.are.same({ 1, 2, 3 }, flat(p))
      p = nil
      collectgarbage()
      collectgarbage()
      local g = gm.ensure(m, "managed") -- the managed facet: the storage moves to managed memory
      assert.is_false(g:is_owning())
      assert.are.equal("managed", g:mem_type())
      assert.are.same({ 1, 2, 3 }, flat(g))
      assert.is_truthy(m:facets():find("M"))
      local h2d, d2h = copies()
      gm.scal_(2, m) -- device op in place on managed memory
      assert.are.equal(6, gm.bref(g, 3))
      assert.are.equal(6, gm.mref(m, 3))
      local h2d1, d2h1 = copies()
      assert.are.equal(h2d, h2d1)
      assert.are.equal(d2h, d2h1)
    end)
  end)
end)

describe("the managed facet of mats", function()
  it("needs a context, and no view of another facet #host", function()
    local m = gm.mat(2, { initial_element = 1 })
    assert.has_error(function() gm.with_facet(m, "managed", "input", function() end) end,
      "with_facet: facet 'managed' needs an active cuda context (with_cuda)")
    on_device(function()
      local v = gm.ensure(m, "host")
      assert.has_error(function() gm.ensure(m, "managed") end,
        "ensure: facet 'managed' cannot be made while facet 'foreign' is being accessed or referenced")
      gm.deref_buffer(v)
      local g = gm.ensure(m, "managed")
      assert.are.same({ 1, 1 }, flat(g))
      gm.with_facet(m, "managed", "io", function(ptr) assert.are.equal("userdata", type(ptr)) end)
      assert.are.equal(1, gm.mref(m, 2))
    end)
  end)
end)

describe("ensure on buffers and tables", function()
  it("a buffer already in the memory type is viewed, else copied", function()
    on_device(function()
      local h = gm.make_foreign_array(3, { element_type = "int32", initial_element = 4 })
      local v = gm.ensure(h, "host")
      assert.is_false(v:is_owning())
      local h2d = copies()
      local d = gm.ensure(h, "device")
      assert.is_true(d:is_owning())
      assert.are.equal(h2d + 1, (copies()))
      assert.are.same({ 4, 4, 4 }, flat(d))
      local mapped = gm.make_cuda_host_array(2, { flags = { "mapped" }, initial_element = 1 })
      local mv = gm.ensure(mapped, "device")
      assert.is_false(mv:is_owning())
      assert.are.equal("device", mv:mem_type())
      local managed = gm.make_managed_array(2)
      assert.is_false(gm.ensure(managed, "device"):is_owning())
      assert.is_false(gm.ensure(managed, "host"):is_owning())
      local conv = gm.ensure(h, "host", { ctype = "double" })
      assert.is_true(conv:is_owning())
      assert.are.equal("double", gm.buffer_element_type(conv))
    end)
  end)

  it("a Lua table gives an owning buffer", function()
    local b = gm.ensure({ { 1, 2 }, { 3, 4 } }, "host")
    assert.is_true(b:is_owning())
    assert.are.equal("double", gm.buffer_element_type(b))
    assert.are.same({ 1, 2, 3, 4 }, flat(b))
    local c = gm.ensure({ { 1, 2 }, { 3, 4 } }, "host", { ctype = "int8", layout = "col_major" })
    assert.are.equal("col_major", c:layout())
    assert.are.equal(3, gm.bref(c, 2, 1))
  end)
end)

describe("memory_type_dispatch", function()
  it("calls the function of x's memory type with a view", function()
    local m = gm.mat(2, { initial_element = 3 })
    local got = gm.memory_type_dispatch(m, {
      host = function(b) return "host", gm.row_major_bref(b, 1) end,
    })
    assert.are.equal("host", got)
    on_device(function()
      local d = gm.make_cuda_array(2, { element_type = "float", initial_element = 5 })
      local kind, owning = gm.memory_type_dispatch(d, {
        host = function(b) return "host", b:is_owning() end,
        device = function(b) return "device", b:is_owning() end,
      })
      assert.are.equal("device", kind)
      assert.is_false(owning)
      -- no function for "host": ensured into the first listed type
      local k2 = gm.memory_type_dispatch(gm.make_foreign_array(1), { device = function(b) return b:mem_type() end })
      assert.are.equal("device", k2)
    end)
  end)

  it("without a context only host functions are usable #host", function()
    assert.has_error(function()
      gm.memory_type_dispatch(gm.mat(1), { device = function() end })
    end, "memory_type_dispatch: no function for a usable memory type")
    assert.has_error(function() gm.memory_type_dispatch(gm.mat(1), { gpu = function() end }) end,
      "bad argument #2 to 'memory_type_dispatch' (unknown memory type 'gpu')")
  end)
end)
