-- The allocation hit path's shortcuts (bench/RESULTS.md, memperf): the
-- makers read a plain options table in one raw pass and fall back to the
-- general read for anything else; gm.deref_buffer is the C function (true
-- for Lua tables); gm.cached ends its scope in one C call.  Both option
-- reads must give the same buffers and the same errors.
local gm = require "gpumat"

local EMU = { backend = "emulated" }
local function on_device(fn) return gm.with_cuda(EMU, fn) end

local function flat(b)
  local t = {}
  for k = 1, gm.buffer_size(b) do t[k] = gm.row_major_bref(b, k) end
  return t
end

-- the same options as a plain table and behind an __index metatable (the
-- general read: lua_getfield sees inherited keys)
local function both(opts)
  return opts, setmetatable({}, { __index = opts })
end

local function err_of(f)
  local ok, e = pcall(f)
  assert.is_false(ok)
  return tostring(e):gsub("^.-:%d+: ", "")
end

describe("maker options: fast and general reads agree", function()
  it("element type and initial element on both reads, every maker", function()
    for _, opts in ipairs({ both({ element_type = "int16", initial_element = 7 }) }) do
      local b = gm.make_foreign_array({ 2, 3 }, opts)
      assert.are.equal("int16", gm.buffer_element_type(b))
      assert.are.same({ 7, 7, 7, 7, 7, 7 }, flat(b))
    end
    on_device(function()
      for _, maker in ipairs({ "make_cuda_array", "make_managed_array", "make_cuda_host_array" }) do
        for _, opts in ipairs({ both({ foreign_type = "uint8", initial_element = 2.0 }) }) do
          local b = gm[maker](5, opts)
          assert.are.equal("uint8", gm.buffer_element_type(b), maker)
          assert.are.same({ 2, 2, 2, 2, 2 }, flat(b), maker)
          assert.is_true(math.type(gm.row_major_bref(b, 1)) == "integer", maker)
        end
      end
    end)
  end)

  it("defaults: float, no fill; an empty table and nil are the same", function()
    for _, opts in ipairs({ {}, false }) do
      local b = gm.make_foreign_array(3, opts or nil)
      assert.are.equal("float", gm.buffer_element_type(b))
      assert.are.equal(3, gm.buffer_size(b))
    end
  end)

  it("pitch options on both reads give the same pitched block", function()
    on_device(function()
      local pitches = {}
      for i, opts in ipairs({ both({ element_type = "double", pitch_elt_size = 8, pitch_level = 1, initial_element = -1.5 }) }) do
        local b = gm.make_cuda_array({ 3, 5 }, opts)
        pitches[i] = gm.buffer_pitch(b)
        assert.are.equal("double", gm.buffer_element_type(b))
        assert.are.same({ -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5 }, flat(b))
      end
      assert.is_true(pitches[1] >= 5 * 8)
      -- an integral float is an integer option on both reads
      local b = gm.make_cuda_array({ 2, 4 }, { element_type = "float", pitch_elt_size = 4.0 })
      assert.are.equal(gm.buffer_pitch(gm.make_cuda_array({ 2, 4 }, { element_type = "float", pitch_elt_size = 4 })),
        gm.buffer_pitch(b))
    end)
  end)

  it("every option error is the same on both reads", function()
    local cases = {
      { "make_foreign_array", 3, { element_type = "int16", bogus = 1 },
        "bad argument #2 to 'make_foreign_array' (unknown option 'bogus')" },
      { "make_foreign_array", 3, { element_type = "int16", foreign_type = "int8" },
        "bad argument #2 to 'make_foreign_array' (options 'element_type' and 'foreign_type' are mutually exclusive)" },
      { "make_foreign_array", 3, { element_type = "int12" },
        "bad argument #2 to 'make_foreign_array' (option 'element_type' must be one of bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float double, got int12)" },
      { "make_foreign_array", 3, { element_type = 5 },
        "bad argument #2 to 'make_foreign_array' (option 'element_type' must be one of bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float double, got number)" },
      { "make_foreign_array", 3, { element_type = "uint8", initial_element = 300 },
        "bad argument #2 to 'make_foreign_array' (option 'initial_element' 300 does not fit element type uint8)" },
      { "make_foreign_array", 3, { element_type = "int32", initial_element = 1.5 },
        "bad argument #2 to 'make_foreign_array' (option 'initial_element' 1.5 is not a value of element type int32)" },
      { "make_foreign_array", 3, { initial_element = "1" },
        "bad argument #2 to 'make_foreign_array' (option 'initial_element' must be a number, got string)" },
      { "make_foreign_array", 3, { pitch_elt_size = 4 },
        "bad argument #2 to 'make_foreign_array' (unknown option 'pitch_elt_size')" },
      { "make_cuda_array", 4, { pitch_elt_size = 3 },
        "bad argument #2 to 'make_cuda_array' (option 'pitch_elt_size' must be 4, 8 or 16, got 3)" },
      { "make_cuda_array", 4, { pitch_elt_size = -4 },
        "bad argument #2 to 'make_cuda_array' (option 'pitch_elt_size' must be non-negative, got -4)" },
      { "make_cuda_array", 4, { pitch_elt_size = 4.5 },
        "bad argument #2 to 'make_cuda_array' (option 'pitch_elt_size' must be an integer, got number)" },
      { "make_cuda_array", 4, { pitch_level = 1 },
        "bad argument #2 to 'make_cuda_array' (option 'pitch_level' needs 'pitch_elt_size')" },
      { "make_cuda_array", { 2, 2 }, { pitch_elt_size = 4, pitch_level = 3 },
        "bad argument #2 to 'make_cuda_array' (option 'pitch_level' must be between 1 and the rank 2, got 3)" },
      { "make_cuda_array", { 2, 2 }, { pitch_elt_size = 4, pitch_level = 0 },
        "bad argument #2 to 'make_cuda_array' (option 'pitch_level' must be between 1 and the rank 2, got 0)" },
      { "make_cuda_host_array", 3, { element_type = "float", flags = { "sticky" } },
        "bad argument #2 to 'make_cuda_host_array' (flag 1 must be \"portable\", \"mapped\" or \"write_combine\", got sticky)" },
      { "make_foreign_array", { 1 << 40, 1 << 40 }, { element_type = "int8" },
        "bad argument #1 to 'make_foreign_array' (dimensions are too large)" },
    }
    on_device(function()
      for _, c in ipairs(cases) do
        local plain, inherited = both(c[3])
        assert.are.equal(c[4], err_of(function() gm[c[1]](c[2], plain) end))
        -- an unknown option is a raw key: behind __index it is not seen
        if not c[4]:find("unknown option", 1, true) then
          assert.are.equal(c[4], err_of(function() gm[c[1]](c[2], inherited) end))
        end
      end
      -- a non-string key: never converted in place (that would break the
      -- traversal), reported by its type
      assert.are.equal("bad argument #2 to 'make_cuda_array' (unknown option 'number')",
        err_of(function() gm.make_cuda_array(4, { 1, element_type = "float" }) end))
      assert.are.equal("bad argument #2 to 'make_cuda_array' (options table expected, got string)",
        err_of(function() gm.make_cuda_array(4, "float") end))
    end)
  end)

  it("cuda host flags still take the general read and work", function()
    on_device(function()
      local b = gm.make_cuda_host_array(4, { element_type = "int32", flags = { "mapped" }, initial_element = 3 })
      assert.are.same({ 3, 3, 3, 3 }, flat(b))
    end)
  end)
end)

describe("deref_buffer and cached on the hit path", function()
  it("deref_buffer: true for a Lua table, nothing for nil, counts for buffers, errors otherwise", function()
    assert.is_true(gm.deref_buffer({ 1, 2 }))
    assert.is_true(gm.deref_buffer(setmetatable({}, {})))
    assert.are.equal(0, select("#", gm.deref_buffer(nil)))
    local b = gm.make_foreign_array(2)
    gm.ref_buffer(b)
    assert.are.equal(1, gm.deref_buffer(b))
    assert.is_nil(gm.deref_buffer(b))
    assert.are.equal("bad argument #1 to 'deref_buffer' (gpumat buffer expected, got number)",
      err_of(function() gm.deref_buffer(5) end))
    assert.are.equal("bad argument #1 to 'deref_buffer' (gpumat buffer expected, got gpumat.mat)",
      err_of(function() gm.deref_buffer(gm.mat(2)) end))
  end)

  it("cached returns every result (nils included) and raises the error value itself", function()
    local cache = gm.alloc_cache()
    local n, a, b, c = (function(...) return select("#", ...), ... end)(gm.cached(cache, function(x) return x, nil, x + 1 end, 4))
    assert.are.equal(3, n)
    assert.are.same({ 4, nil, 5 }, { a, b, c })
    assert.are.equal(0, select("#", gm.cached(cache, function() end)))
    local obj = {}
    local ok, e = pcall(gm.cached, cache, function() error(obj) end)
    assert.is_false(ok)
    assert.are.equal(obj, e)
    ok, e = pcall(gm.cached, cache, function() error("plain", 0) end)
    assert.are.equal("plain", e)
    -- a buffer returned from the scope is kept; one made and not returned
    -- goes back at the scope's end (alive until then, so no GC timing)
    local kept = gm.cached(cache, function()
      local other = gm.make_foreign_array(16, { element_type = "int32" })
      local b = gm.make_foreign_array(16, { element_type = "int32", initial_element = 9 })
      assert.are.equal(16, gm.buffer_size(other))
      return b
    end)
    assert.are.equal(9, gm.row_major_bref(kept, 16))
    assert.are.equal(1, cache:stats().n_blocks)
    -- the scope ended: a later allocation is not from the cache
    local hits = cache:stats().n_hits
    gm.make_foreign_array(16, { element_type = "int32" })
    assert.are.equal(hits, cache:stats().n_hits)
    gm.cached(cache, function() gm.make_foreign_array(16, { element_type = "int32" }) end)
    assert.are.equal(hits + 1, cache:stats().n_hits)
    cache:free()
  end)
end)
