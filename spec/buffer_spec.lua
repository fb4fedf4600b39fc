-- Buffers: makers in every memory space, element types,
-- refcounts shared by displaced views, displacement rules, pitched device
-- arrays, pinned flags and mappings, managed arrays, bulk copies across
-- every pair of memory spaces (counted), write/read on Lua files,
-- mat_from_buffer without copies, finalizers and <close>.  Device, pinned
-- and managed buffers are made on the emulated device (its own pitched,
-- pinned, mapped and managed memory), so this runs without a GPU.
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

local function iota(b, start)
  for k = 1, gm.buffer_size(b) do gm.set_row_major_bref(b, k, (start or 0) + k) end
  return b
end

local function range(a, n)
  local t = {}
  for k = 1, n do t[k] = a + k - 1 end
  return t
end

describe("buffers: kinds and element types", function()
  it("bufferp tells Lua tables, gpumat buffers and the rest apart", function()
    assert.are.equal("lua", gm.bufferp({ 1, 2 }))
    assert.are.equal("foreign", gm.bufferp(gm.make_foreign_array(2)))
    assert.is_nil(gm.bufferp(gm.mat(2)))
    assert.is_nil(gm.bufferp(3))
    assert.is_nil(gm.bufferp("x"))
  end)

  it("every element type stores its C type's values exactly", function()
    local cases = {
      { "int8", "int8_t", 1, -128, 127 }, { "uint8", "uint8_t", 1, 0, 255 },
      { "int16", "int16_t", 2, -32768, 32767 }, { "uint16", "uint16_t", 2, 0, 65535 },
      { "int32", "int32_t", 4, -2147483648, 2147483647 }, { "uint32", "uint32_t", 4, 0, 4294967295 },
      { "int64", "int64_t", 8, math.mininteger, math.maxinteger },
      { "float", "float", 4, -16777216, 16777216 }, { "double", "double", 8, -2 ^ 53, 2 ^ 53 },
    }
    for _, c in ipairs(cases) do
      local et, ct, size, lo, hi = table.unpack(c)
      local b = gm.make_foreign_array({ 2, 2 }, { element_type = et, initial_element = 3 })
      assert.are.equal(et, gm.buffer_element_type(b))
      assert.are.equal(ct, gm.buffer_foreign_type(b))
      assert.are.equal(3, gm.bref(b, 2, 2))
      gm.set_bref(b, 1, 1, lo)
      gm.set_bref(b, 1, 2, hi)
      assert.are.equal(lo, gm.bref(b, 1, 1))
      assert.are.equal(hi, gm.bref(b, 1, 2))
      local f = io.tmpfile()
      gm.write_buffer(b, f)
      assert.are.equal(4 * size, f:seek("cur"))
      f:close()
      -- foreign_type names work as well
      local b2 = gm.make_foreign_array(1, { foreign_type = ct })
      assert.are.equal(et, gm.buffer_element_type(b2))
    end
  end)

  it("integers reject fractions and out-of-range values; the buffer stays unchanged", function()
    local b = gm.make_foreign_array(2, { element_type = "int8", initial_element = 5 })
    assert.has_error(function() gm.set_row_major_bref(b, 1, 200) end,
      "bad argument #3 to 'set_row_major_bref' (value 200 does not fit element type int8)")
    assert.has_error(function() gm.set_row_major_bref(b, 1, 1.5) end,
      "bad argument #3 to 'set_row_major_bref' (value 1.5 is not a value of element type int8)")
    assert.has_error(function() gm.buffer_fill(b, -129) end,
      "bad argument #2 to 'buffer_fill' (value -129 does not fit element type int8)")
    assert.are.same({ 5, 5 }, flat(b))
    local u = gm.make_foreign_array(1, { element_type = "uint32" })
    assert.has_error(function() gm.set_row_major_bref(u, 1, -1) end)
  end)

  it("float elements round through float", function()
    local b = gm.make_foreign_array(1, { element_type = "float" })
    gm.set_row_major_bref(b, 1, 0.1)
    assert.are.equal(string.unpack("<f", string.pack("<f", 0.1)), gm.row_major_bref(b, 1))
  end)

  it("makers check dims, element types and options", function()
    assert.has_error(function() gm.make_foreign_array({ 2, -1 }) end,
      "bad argument #1 to 'make_foreign_array' (dimension 2 must be non-negative, got -1)")
    assert.has_error(function() gm.make_foreign_array(2, { element_type = "complex" }) end,
      "bad argument #2 to 'make_foreign_array' (option 'element_type' must be one of bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float double, got complex)")
    assert.has_error(function() gm.make_foreign_array(2, { element_type = "float", foreign_type = "float" }) end,
      "bad argument #2 to 'make_foreign_array' (options 'element_type' and 'foreign_type' are mutually exclusive)")
    assert.has_error(function() gm.make_foreign_array(2, { pitch_elt_size = 4 }) end,
      "bad argument #2 to 'make_foreign_array' (unknown option 'pitch_elt_size')")
  end)

  it("device, pinned and managed makers need an active cuda context #host", function()
    for _, name in ipairs({ "make_cuda_array", "make_cuda_host_array", "make_managed_array" }) do
      assert.has_error(function() gm[name](4) end, name .. ": needs an active cuda context (with_cuda)")
    end
  end)

  it("dimensions, rank, size, row-major index and bref use 1-based indices", function()
    local b = iota(gm.make_foreign_array({ 2, 3, 4 }, { element_type = "int32" }))
    assert.are.equal(3, gm.buffer_rank(b))
    assert.are.same({ 2, 3, 4 }, gm.buffer_dimensions(b))
    assert.are.equal(3, gm.buffer_dimension(b, 2))
    assert.are.equal(24, gm.buffer_size(b))
    assert.are.equal(1 * 12 + 2 * 4 + 3 + 1, gm.buffer_row_major_index(b, 2, 3, 4))
    assert.are.equal(24, gm.bref(b, 2, 3, 4))
    assert.are.equal(6, gm.bref(b, 1, 2, 2))
    assert.has_error(function() gm.bref(b, 3, 1, 1) end, "bad argument #2 to 'bref' (index 3 is out of range 1..2)")
    assert.has_error(function() gm.bref(b, 1, 1) end, "bref: 2 subscripts for a buffer of rank 3")
    assert.are.equal(7, b:bref(1, 2, 3)) -- methods
    assert.are.equal("#<BUFFER int32 {2, 3, 4} host>", tostring(b))
    assert.has_error(function() gm.buffer_size(gm.mat(2)) end,
      "bad argument #1 to 'buffer_size' (gpumat buffer expected, got gpumat.mat)")
  end)

  it("buffer_fill honours start and stop", function()
    local b = gm.make_foreign_array(6, { element_type = "int16", initial_element = 0 })
    gm.buffer_fill(b, 9, { start = 2, stop = 4 })
    assert.are.same({ 0, 9, 9, 9, 0, 0 }, flat(b))
    assert.has_error(function() gm.buffer_fill(b, 1, { start = 5, stop = 7 }) end,
      "bad argument #3 to 'buffer_fill' (stop 7 is out of range 4..6)")
  end)

  it("Lua tables are buffers too", function()
    local t = { { 1, 2, 3 }, { 4, 5, 6 } }
    assert.are.equal(true, gm.buffer_refcnt(t))
    assert.are.same({ 2, 3 }, gm.buffer_dimensions(t))
    assert.are.equal(6, gm.bref(t, 2, 3))
    gm.set_bref(t, 1, 1, 10)
    assert.are.equal(10, t[1][1])
    local arr, shared = gm.buffer_as_array(t)
    assert.are.equal(t, arr)
    assert.is_true(shared)
    local b = gm.make_foreign_array({ 2, 3 }, { element_type = "double" })
    gm.copy_full_buffer(t, b)
    assert.are.same({ 10, 2, 3, 4, 5, 6 }, flat(b))
    local back, shared2 = gm.buffer_as_array(b)
    assert.are.same({ { 10, 2, 3 }, { 4, 5, 6 } }, back)
    assert.is_false(shared2)
    assert.are.same({ { 0, 0, 0 }, { 0, 0, 0 } }, (gm.buffer_as_array(b, { no_copy = true })))
  end)
end)

describe("buffers: refcounts and lifetime", function()
  it("ref/deref count, and at zero every view raises buffer released", function()
    local b = gm.make_foreign_array(4, { element_type = "int32", initial_element = 1 })
    local v = gm.buffer_displace(b, { offset = 1, size = 2 })
    assert.are.equal(1, gm.buffer_refcnt(b))
    assert.are.equal(b, gm.ref_buffer(b))
    assert.are.equal(2, gm.buffer_refcnt(v)) -- views share the count
    assert.are.equal(1, gm.deref_buffer(v))
    assert.is_nil(gm.deref_buffer(b))
    assert.is_nil(gm.buffer_refcnt(b))
    assert.is_nil(gm.buffer_refcnt(v))
    assert.are.equal("#<BUFFER int32 {2} released>", tostring(v))
    assert.has_error(function() gm.bref(b, 1) end, "bref: buffer released")
    assert.has_error(function() gm.row_major_bref(v, 1) end, "row_major_bref: buffer released")
    assert.has_error(function() gm.ref_buffer(v) end, "ref_buffer: buffer released")
    assert.is_nil(gm.deref_buffer(nil))
  end)

  it("with_deref_buffer(s) deref on every exit, errors included", function()
    local a, b = gm.make_foreign_array(1), gm.make_foreign_array(1)
    gm.ref_buffer(a)
    assert.are.equal(7, gm.with_deref_buffer(a, function(x)
      assert.are.equal(a, x)
      return 7
    end))
    assert.are.equal(1, gm.buffer_refcnt(a))
    assert.has_error(function()
      gm.with_deref_buffers({ a, b }, function() error("boom", 0) end)
    end, "boom")
    assert.is_nil(gm.buffer_refcnt(a))
    assert.is_nil(gm.buffer_refcnt(b))
  end)

  it("<close> derefs once", function()
    local keep
    do
      local b <close> = gm.make_foreign_array(2)
      keep = b
      assert.are.equal(1, gm.buffer_refcnt(b))
    end
    assert.is_nil(gm.buffer_refcnt(keep))
  end)

  it("a garbage device buffer goes back through the deferred-free queue #outermost", function()
    on_device(function()
      collectgarbage()
      collectgarbage()
      gm.collect()
      local before = gm.counters().device_bytes_in_use
      local b = gm.make_cuda_array(1000, { element_type = "double" })
      assert.are.equal(before + 8192, gm.counters().device_bytes_in_use)
      b = nil
      collectgarbage()
      collectgarbage()
      gm.collect()
      assert.are.equal(before, gm.counters().device_bytes_in_use)
      -- deref releases at once (queued), without waiting for the GC
      local c = gm.make_cuda_array(1000, { element_type = "double" })
      gm.deref_buffer(c)
      gm.collect()
      assert.are.equal(before, gm.counters().device_bytes_in_use)
    end)
  end)
end)

describe("buffers: displacement", function()
  it("offset, byte offset, retyping, size and dimensions", function()
    local b = iota(gm.make_foreign_array(8, { element_type = "int32" }))
    local v = gm.buffer_displace(b, { offset = 2, dimensions = { 2, 3 } })
    assert.are.same({ 3, 4, 5, 6, 7, 8 }, flat(v))
    assert.are.equal(6, gm.bref(v, 2, 1))
    local base, off = gm.buffer_displacement(v)
    assert.are.equal(b, base)
    assert.are.equal(2, off)
    assert.is_nil(gm.buffer_displacement(b))
    local w = gm.buffer_displace(b, { byte_offset = 12, size = true })
    assert.are.same({ 4, 5, 6, 7, 8 }, flat(w))
    local bytes = gm.buffer_displace(b, { element_type = "uint8", size = 4 })
    assert.are.same({ 1, 0, 0, 0 }, flat(bytes)) -- little-endian 1
    local f = gm.make_foreign_array(1, { element_type = "float", initial_element = 1 })
    assert.are.equal(0x3f800000, gm.row_major_bref(gm.buffer_displace(f, { element_type = "int32" }), 1))
    -- writes through a view are seen by the base
    gm.set_row_major_bref(v, 1, -3)
    assert.are.equal(-3, gm.row_major_bref(b, 3))
  end)

  it("conflicting pairs, misalignment and views past the end are errors", function()
    local b = gm.make_foreign_array(8, { element_type = "int32" })
    assert.has_error(function() gm.buffer_displace(b, { offset = 1, byte_offset = 4 }) end,
      "bad argument #2 to 'buffer_displace' (options 'offset' and 'byte_offset' are mutually exclusive)")
    assert.has_error(function() gm.buffer_displace(b, { size = 1, dimensions = { 1 } }) end,
      "bad argument #2 to 'buffer_displace' (options 'size' and 'dimensions' are mutually exclusive)")
    assert.has_error(function() gm.buffer_displace(b, { element_type = "int8", foreign_type = "int8_t" }) end,
      "bad argument #2 to 'buffer_displace' (options 'element_type' and 'foreign_type' are mutually exclusive)")
    assert.has_error(function() gm.buffer_displace(b, { byte_offset = 2 }) end,
      "bad argument #2 to 'buffer_displace' (byte offset 2 is not a multiple of the element size 4)")
    assert.has_error(function() gm.buffer_displace(b, { offset = 6, size = 3 }) end,
      "bad argument #2 to 'buffer_displace' (the view (12 bytes at byte 24) goes past the end of the block (32 bytes))")
    assert.has_error(function() gm.buffer_displace(b, { mapping = "device" }) end,
      "bad argument #2 to 'buffer_displace' (option 'mapping' needs a page-locked buffer with the \"mapped\" flag)")
    assert.has_error(function() gm.buffer_displace(b, { offset = 9 }) end)
  end)
end)

describe("buffers: device memory spaces", function()
  it("pitched arrays pad rows; views fit a row or split at rows", function()
    on_device(function()
      local d = gm.make_cuda_array({ 3, 5 }, { element_type = "float", pitch_elt_size = 4, initial_element = 0 })
      local pitch = gm.buffer_pitch(d)
      assert.is_true(pitch >= 20 and pitch % 4 == 0)
      assert.are.equal(256, pitch) -- the emulated device pads rows as cudaMallocPitch does
      assert.is_nil(gm.buffer_pitch(gm.make_cuda_array(15)))
      local h = iota(gm.make_foreign_array({ 3, 5 }, { element_type = "float" }))
      local h2d, d2h = copies()
      gm.copy_full_buffer(h, d) -- one 2-d copy
      local h2d1 = copies()
      assert.are.equal(h2d + 1, h2d1)
      local back = gm.make_foreign_array({ 3, 5 }, { element_type = "float" })
      gm.copy_full_buffer(d, back)
      local _, d2h1 = copies()
      assert.are.equal(d2h + 1, d2h1)
      assert.are.same(range(1, 15), flat(back))
      assert.are.equal(8, gm.bref(d, 2, 3))
      local row = gm.buffer_displace(d, { offset = 5, size = 5 })
      assert.are.same(range(6, 5), flat(row))
      local two = gm.buffer_displace(d, { offset = 5, dimensions = { 2, 5 } })
      assert.are.same(range(6, 10), flat(two))
      assert.has_error(function() gm.buffer_displace(d, { offset = 3, size = 5 }) end,
        "bad argument #2 to 'buffer_displace' (a view of a pitched buffer must fit in one row or split evenly at rows of 20 bytes)")
      -- pitched <-> pitched and pitched <-> linear device copies
      local lin = gm.make_cuda_array(15, { element_type = "float" })
      gm.copy_full_buffer(d, lin)
      assert.are.same(range(1, 15), flat(lin))
      local d2 = gm.make_cuda_array({ 3, 5 }, { element_type = "float", pitch_elt_size = 8 })
      gm.copy_buffer_data(lin, 2, d2, 1, 14)
      assert.are.same(range(2, 14), { table.unpack(flat(d2), 1, 14) })
    end)
  end)

  it("make_cuda_array checks the pitch options", function()
    on_device(function()
      assert.has_error(function() gm.make_cuda_array(4, { pitch_elt_size = 3 }) end,
        "bad argument #2 to 'make_cuda_array' (option 'pitch_elt_size' must be 4, 8 or 16, got 3)")
      assert.has_error(function() gm.make_cuda_array({ 2, 2 }, { pitch_elt_size = 4, pitch_level = 3 }) end,
        "bad argument #2 to 'make_cuda_array' (option 'pitch_level' must be between 1 and the rank 2, got 3)")
      assert.has_error(function() gm.make_cuda_array(4, { pitch_level = 1 }) end,
        "bad argument #2 to 'make_cuda_array' (option 'pitch_level' needs 'pitch_elt_size')")
      local d = gm.make_cuda_array({ 2, 3, 4 }, { element_type = "int16", pitch_elt_size = 16, pitch_level = 2,
        initial_element = 7 })
      assert.are.equal(7, gm.bref(d, 2, 3, 4))
    end)
  end)

  it("pinned arrays take flags; mapped ones switch between host and device", function()
    on_device(function()
      local p = gm.make_cuda_host_array(4, { element_type = "double", initial_element = 2,
        flags = { "portable", "mapped", "write_combine" } })
      assert.are.equal("pinned", p:mem_type())
      local d = gm.buffer_displace(p, { mapping = "device" })
      assert.are.equal("device", d:mem_type())
      assert.are.equal("device", gm.buffer_displace(d, { mapping = "gpu" }):mem_type())
      local h = gm.buffer_displace(d, { mapping = "host", offset = 1, size = 2 })
      assert.are.equal("pinned", h:mem_type())
      gm.set_row_major_bref(d, 2, 5)
      assert.are.same({ 5, 2 }, flat(h)) -- one memory
      assert.has_error(function() gm.make_cuda_host_array(4, { flags = { "huge" } }) end,
        "bad argument #2 to 'make_cuda_host_array' (flag 1 must be \"portable\", \"mapped\" or \"write_combine\", got huge)")
      local plain = gm.make_cuda_host_array(2)
      assert.has_error(function() gm.buffer_displace(plain, { mapping = "device" }) end)
      assert.has_error(function() gm.buffer_displace(p, { mapping = "sideways" }) end,
        "bad argument #2 to 'buffer_displace' (option 'mapping' must be \"device\", \"gpu\" or \"host\", got sideways)")
    end)
  end)

  it("managed arrays are read and written from the host and the device", function()
    on_device(function()
      local m = gm.make_managed_array({ 2, 2 }, { element_type = "float", initial_element = 1.5 })
      assert.are.equal("managed", m:mem_type())
      assert.are.equal(1.5, gm.bref(m, 2, 1))
      local mat = gm.mat_from_buffer(m)
      assert.are.equal("FM", mat:facets()) -- host and managed facets: one memory
      local h2d, d2h = copies()
      gm.scal_(2, mat) -- on the device, in place
      assert.are.equal(3, gm.bref(m, 2, 2))
      assert.are.equal(3, gm.mref(mat, 1, 1))
      local h2d1, d2h1 = copies()
      assert.are.equal(h2d, h2d1)
      assert.are.equal(d2h, d2h1)
    end)
  end)
end)

describe("buffers: bulk copies", function()
  local makers = {
    host = function(n) return gm.make_foreign_array(n, { element_type = "int32" }) end,
    pinned = function(n) return gm.make_cuda_host_array(n, { element_type = "int32" }) end,
    mapped = function(n) return gm.make_cuda_host_array(n, { element_type = "int32", flags = { "mapped" } }) end,
    device = function(n) return gm.make_cuda_array(n, { element_type = "int32" }) end,
    pitched = function(n) return gm.make_cuda_array({ n // 4, 4 }, { element_type = "int32", pitch_elt_size = 4 }) end,
    managed = function(n) return gm.make_managed_array(n, { element_type = "int32" }) end,
    lua = function(n) local t = {} for k = 1, n do t[k] = 0 end return t end,
  }
  local on_dev = { device = true, pitched = true }

  it("work across every pair of memory spaces, counted once per device copy", function()
    on_device(function()
      for sname, smake in pairs(makers) do
        for dname, dmake in pairs(makers) do
          local src, dst = smake(12), dmake(12)
          for k = 1, 12 do gm.set_row_major_bref(src, k, 100 + k) end
          local h2d, d2h = copies()
          gm.copy_full_buffer(src, dst)
          local h2d1, d2h1 = copies()
          if sname ~= "lua" and dname ~= "lua" then
            local want_h2d = (on_dev[dname] and not on_dev[sname]) and 1 or 0
            local want_d2h = (on_dev[sname] and not on_dev[dname]) and 1 or 0
            assert.are.equal(want_h2d, h2d1 - h2d, sname .. " -> " .. dname)
            assert.are.equal(want_d2h, d2h1 - d2h, sname .. " -> " .. dname)
          end
          assert.are.same(range(101, 12), flat(dst), sname .. " -> " .. dname)
          assert.are.equal(5, gm.copy_buffer_data(src, 8, dst, 1, true))
          assert.are.same({ 108, 109, 110, 111, 112, 106 }, { table.unpack(flat(dst), 1, 6) })
        end
      end
    end)
  end)

  it("overlapping areas of one block are an error and change nothing", function()
    on_device(function()
      for _, name in ipairs({ "host", "device", "pitched" }) do
        local b = iota(makers[name](8))
        assert.has_error(function() gm.copy_buffer_data(b, 1, b, 3, 4) end,
          "copy_buffer_data: source and destination areas overlap")
        local v = gm.buffer_displace(b, { offset = 4, size = 4 })
        assert.has_error(function() gm.copy_buffer_data(v, 1, b, 3, 4) end,
          "copy_buffer_data: source and destination areas overlap")
        assert.are.same(range(1, 8), flat(b))
        assert.are.equal(2, gm.copy_buffer_data(b, 1, b, 5, 2))
        assert.are.same({ 1, 2, 3, 4, 1, 2, 7, 8 }, flat(b))
      end
    end)
  end)

  it("checks element types, sizes and counts", function()
    local a = gm.make_foreign_array(4, { element_type = "int32" })
    local b = gm.make_foreign_array(4, { element_type = "float" })
    local c = gm.make_foreign_array(3, { element_type = "int32" })
    assert.has_error(function() gm.copy_full_buffer(a, b) end, "copy_full_buffer: element types differ (int32 and float)")
    assert.has_error(function() gm.copy_full_buffer(a, c) end, "copy_full_buffer: sizes differ (4 and 3)")
    assert.has_error(function() gm.copy_buffer_data(a, 1, c, 1, 4) end,
      "bad argument #5 to 'copy_buffer_data' (count 4 does not fit (at most 3))")
    assert.has_error(function() gm.copy_buffer_data(a, 0, c, 1, 1) end,
      "bad argument #2 to 'copy_buffer_data' (index 0 is out of range 1..5)")
    assert.has_no_error(function() gm.copy_full_buffer(a, a) end)
  end)

  it("write_buffer and read_buffer move the raw bytes through Lua files", function()
    on_device(function()
      local b = iota(gm.make_cuda_array({ 2, 3 }, { element_type = "int16", pitch_elt_size = 4 }), -3)
      local f = io.tmpfile()
      gm.write_buffer(b, f)
      f:seek("set")
      local s = f:read("a")
      assert.are.equal(12, #s)
      local vals = { string.unpack("<i2i2i2i2i2i2", s) }
      vals[7] = nil -- the next position
      assert.are.same({ -2, -1, 0, 1, 2, 3 }, vals)
      local c = gm.make_foreign_array(6, { element_type = "int16", initial_element = 9 })
      f:seek("set")
      gm.read_buffer(c, f)
      assert.are.same({ -2, -1, 0, 1, 2, 3 }, flat(c))
      -- a file too short: error, target unchanged
      local short = io.tmpfile()
      short:write("abcd")
      short:seek("set")
      gm.buffer_fill(c, 4)
      assert.has_error(function() gm.read_buffer(c, short) end, "read_buffer: file too short (4 of 12 bytes)")
      assert.are.same({ 4, 4, 4, 4, 4, 4 }, flat(c))
      assert.has_error(function() gm.write_buffer(c, "file") end,
        "bad argument #2 to 'write_buffer' (open Lua file expected, got string)")
      f:close()
      short:close()
    end)
  end)
end)

describe("buffers: mat_from_buffer", function()
  it("a host buffer becomes a mat's foreign facet with no copy and a shared refcount", function()
    local b = iota(gm.make_foreign_array({ 2, 3 }, { element_type = "double" }))
    local m = gm.mat_from_buffer(b)
    assert.are.equal(2, gm.buffer_refcnt(b))
    assert.are.same({ 2, 3 }, m:dims())
    assert.are.equal(6, gm.mref(m, 2, 3))
    gm.scal_(10, m)
    assert.are.equal(60, gm.mref(m, 2, 3)) -- (brings the host facet up to date after a device op)
    assert.are.equal(60, gm.bref(b, 2, 3)) -- one memory
    gm.set_bref(b, 1, 1, -1)
    assert.are.equal(-1, gm.mref(m, 1, 1))
    assert.are.equal(1, gm.deref_buffer(b)) -- the mat's count keeps it
    assert.are.equal(-1, gm.mref(m, 1, 1))
    local v = gm.mat_from_buffer(gm.buffer_displace(b, { offset = 2, size = 3 }), { dims = { 3 } })
    assert.are.equal(30, gm.mref(v, 1))
    assert.are.equal(2, v:displacement())
  end)

  it("a device buffer becomes the cuda facet; a released buffer fails the mat", function()
    on_device(function()
      local d = gm.make_cuda_array(4, { element_type = "float", initial_element = 2 })
      local m = gm.mat_from_buffer(d)
      assert.are.equal("C", m:facets())
      local h2d, d2h = copies()
      gm.scal_(3, m)
      local h2d1, d2h1 = copies()
      assert.are.equal(h2d, h2d1)
      assert.are.equal(d2h, d2h1)
      assert.are.equal(6, gm.row_major_bref(d, 4))
      assert.are.equal(1, gm.deref_buffer(d))
      assert.is_nil(gm.deref_buffer(d)) -- the mat's count too: released for all
      assert.has_error(function() gm.scal_(3, m) end, "scal_: buffer released")
    end)
  end)

  it("takes integer buffers as integer mats; rejects mismatched ctypes and sizes", function()
    local i = gm.make_foreign_array(4, { element_type = "int32" })
    assert.are.equal("int32", gm.mat_from_buffer(i):ctype())
    assert.has_error(function() gm.mat_from_buffer(i, { ctype = "float" }) end,
      "bad argument #2 to 'mat_from_buffer' (option 'ctype' must be the buffer's element type int32)")
    local f = gm.make_foreign_array(4, { element_type = "float" })
    assert.has_error(function() gm.mat_from_buffer(f, { ctype = "double" }) end,
      "bad argument #2 to 'mat_from_buffer' (option 'ctype' must be the buffer's element type float)")
    assert.has_error(function() gm.mat_from_buffer(f, { dims = { 5 } }) end,
      "bad argument #2 to 'mat_from_buffer' (displacement 0 + size 5 does not fit the buffer's block of 4 elements)")
    gm.deref_buffer(f)
    assert.has_error(function() gm.mat_from_buffer(f) end, "mat_from_buffer: buffer released")
  end)
end)

describe("buffers: hostile arguments", function()
  local function trap(act)
    local done = false
    return setmetatable({}, { __index = function()
      if not done then done = true act() end
      return nil
    end })
  end

  it("options that release the buffer mid-call give a clear error", function()
    local b = gm.make_foreign_array(4, { element_type = "float", initial_element = 1 })
    assert.has_error(function() gm.buffer_displace(b, trap(function() gm.deref_buffer(b) end)) end,
      "buffer_displace: buffer released")
    local c = gm.make_foreign_array(4, { element_type = "float", initial_element = 1 })
    assert.has_error(function() gm.buffer_fill(c, 2, trap(function() gm.deref_buffer(c) end)) end,
      "buffer_fill: buffer released")
    local d = gm.make_foreign_array(4, { element_type = "float" })
    assert.has_error(function() gm.mat_from_buffer(d, trap(function() gm.deref_buffer(d) end)) end,
      "mat_from_buffer: buffer released")
    local m = gm.mat(4, { initial_element = 1 })
    assert.has_error(function() gm.ensure(m, "host", trap(function() m:free() end)) end,
      "bad argument #1 to 'ensure' (attempt to use a freed mat)")
  end)

  it("a finalizer releasing a buffer between calls is seen by the next one", function()
    for _ = 1, 20 do
      local b = gm.make_foreign_array(64, { element_type = "double", initial_element = 1 })
      setmetatable({}, { __gc = function() gm.deref_buffer(b) end })
      collectgarbage()
      assert.has_error(function() gm.buffer_fill(b, 2) end, "buffer_fill: buffer released")
    end
  end)
end)

