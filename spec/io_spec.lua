local gm = require "gpumat"

local function slurp(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local function spit(path, bytes)
  local f = assert(io.open(path, "wb"))
  f:write(bytes)
  f:close()
end

local function values(m)
  local t = {}
  for k = 1, m:size() do t[k] = m:row_major_mref(k) end
  return t
end

local fmt = { float = "<f", double = "<d" }
local function payload(ctype, xs)
  local parts = {}
  for i, x in ipairs(xs) do parts[i] = string.pack(fmt[ctype], x) end
  return table.concat(parts)
end

local function to_ctype(ctype, x)
  return (string.unpack(fmt[ctype], string.pack(fmt[ctype], x)))
end

local tmpfiles = {}
local function tmpname()
  local p = os.tmpname()
  tmpfiles[#tmpfiles + 1] = p
  return p
end

local function write_to(path, m)
  local f = assert(io.open(path, "wb"))
  gm.write_mat(m, f)
  f:close()
end

local function read_from(path, m)
  local f = assert(io.open(path, "rb"))
  local ok, err = pcall(gm.read_mat, m, f)
  f:close()
  if not ok then error(err, 0) end
  return m
end

-- The .npy header numpy.save writes (numpy/lib/format.py).
local function npy_header(descr, fortran, shape_repr, first_dim)
  local dict = string.format("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr,
    fortran and "True" or "False", shape_repr)
  if first_dim then dict = dict .. string.rep(" ", 21 - #tostring(first_dim)) end
  local hlen = #dict + 1
  local pad = 64 - (10 + hlen) % 64
  return "\x93NUMPY\x01\x00" .. string.pack("<I2", hlen + pad) .. dict .. string.rep(" ", pad) .. "\n"
end

local xs = { 1.5, -2, 3.25, 0, 1e30, -0.1 }

describe("io", function()
  local saved_headers
  before_each(function() saved_headers = gm.mat_headers end)
  after_each(function()
    gm.mat_headers = saved_headers
    for _, p in ipairs(tmpfiles) do os.remove(p) end
    tmpfiles = {}
  end)

  describe("write_mat", function()
    it("writes MGL's header and little-endian doubles byte for byte", function()
      local m = gm.mat({ 2, 3 }, { initial_contents = { { 1.5, -2, 3.25 }, { 0, 1e30, -0.1 } } })
      local p = tmpname()
      write_to(p, m)
      local header = "(:MAT :SIZE 6 :CTYPE :DOUBLE)"
      assert.equal(29, #header)
      assert.equal(header .. payload("double", xs), slurp(p))
    end)

    it("writes MGL's header and little-endian floats byte for byte", function()
      local m = gm.mat(6, { ctype = "float", initial_contents = xs })
      local p = tmpname()
      write_to(p, m)
      local header = "(:MAT :SIZE 6 :CTYPE :FLOAT)"
      assert.equal(28, #header)
      assert.equal(header .. payload("float", xs), slurp(p))
    end)

    it("writes only the visible part of a displaced view", function()
      local base = gm.mat(10, { initial_contents = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 } })
      local v = gm.mat({ 2, 2 }, { displaced_to = base, displacement = 3 })
      local p = tmpname()
      write_to(p, v)
      assert.equal("(:MAT :SIZE 4 :CTYPE :DOUBLE)" .. payload("double", { 3, 4, 5, 6 }), slurp(p))
    end)

    it("writes no header when mat_headers is false", function()
      gm.mat_headers = false
      local m = gm.mat(3, { ctype = "float", initial_contents = { 1, 2, 3 } })
      local p = tmpname()
      write_to(p, m)
      assert.equal(payload("float", { 1, 2, 3 }), slurp(p))
    end)

    it("returns the mat and works as a method", function()
      local m = gm.mat(2, { initial_contents = { 5, 6 } })
      local p = tmpname()
      local f = assert(io.open(p, "wb"))
      assert.equal(m, m:write_mat(f))
      f:close()
      assert.equal("(:MAT :SIZE 2 :CTYPE :DOUBLE)" .. payload("double", { 5, 6 }), slurp(p))
    end)

    it("appends after what the Lua file handle already wrote", function()
      local m = gm.mat(1, { initial_contents = { 2 } })
      local p = tmpname()
      local f = assert(io.open(p, "wb"))
      f:write("abc")
      gm.write_mat(m, f)
      f:write("xyz")
      f:close()
      assert.equal("abc(:MAT :SIZE 1 :CTYPE :DOUBLE)" .. payload("double", { 2 }) .. "xyz", slurp(p))
    end)

    it("rejects bad arguments", function()
      local m = gm.mat(2)
      assert.has_error(function() gm.write_mat(m, "x") end,
        "bad argument #2 to 'write_mat' (file handle expected, got string)")
      local f = assert(io.open(tmpname(), "wb"))
      f:close()
      assert.has_error(function() gm.write_mat(m, f) end,
        "bad argument #2 to 'write_mat' (attempt to use a closed file)")
      assert.has_error(function() gm.write_mat(nil, f) end,
        "bad argument #1 to 'write_mat' (gpumat.mat expected, got nil)")
      local p = tmpname()
      local ro = assert(io.open(p, "rb"))
      assert.has_error(function() gm.write_mat(m, ro) end, "write_mat: write failed: Bad file descriptor")
      ro:close()
      local wo = assert(io.open(p, "wb"))
      assert.has_error(function() gm.read_mat(m, wo) end, "read_mat: read error: Bad file descriptor")
      wo:close()
    end)
  end)

  describe("read_mat", function()
    for _, ctype in ipairs { "float", "double" } do
      it("round-trips " .. ctype, function()
        local m = gm.mat({ 3, 2 }, { ctype = ctype, initial_contents = { { 1.5, -2 }, { 3.25, 0 }, { 1e30, -0.1 } } })
        local p = tmpname()
        write_to(p, m)
        local r = gm.mat({ 3, 2 }, { ctype = ctype })
        assert.equal(r, read_from(p, r))
        local want = {}
        for i, x in ipairs(xs) do want[i] = to_ctype(ctype, x) end
        assert.same(want, values(r))
      end)

      it("round-trips " .. ctype .. " without headers", function()
        gm.mat_headers = false
        local m = gm.mat(4, { ctype = ctype, initial_contents = { 1, 2, 3, 4 } })
        local p = tmpname()
        write_to(p, m)
        assert.same({ 1, 2, 3, 4 }, values(read_from(p, gm.mat(4, { ctype = ctype }))))
      end)
    end

    it("reads bytes built in plain Lua", function()
      local p = tmpname()
      spit(p, "(:MAT :SIZE 3 :CTYPE :FLOAT)" .. payload("float", { 0.5, -1, 8 }))
      assert.same({ 0.5, -1, 8 }, values(read_from(p, gm.mat(3, { ctype = "float" }))))
    end)

    it("accepts any case, whitespace and key order in the header", function()
      local p = tmpname()
      spit(p, "  \n( :mat\t:ctype :Double\n  :size 2 )" .. payload("double", { 7, 8 }))
      assert.same({ 7, 8 }, values(read_from(p, gm.mat(2))))
    end)

    it("reads two mats from one stream", function()
      local p = tmpname()
      local f = assert(io.open(p, "wb"))
      gm.write_mat(gm.mat(2, { initial_contents = { 1, 2 } }), f)
      gm.write_mat(gm.mat(1, { ctype = "float", initial_contents = { 3 } }), f)
      f:close()
      local a, b = gm.mat(2), gm.mat(1, { ctype = "float" })
      f = assert(io.open(p, "rb"))
      a:read_mat(f)
      b:read_mat(f)
      assert.is_nil(f:read(1))
      f:close()
      assert.same({ 1, 2 }, values(a))
      assert.same({ 3 }, values(b))
    end)

    it("writes only the visible part of a displaced view", function()
      local base = gm.mat(8, { initial_element = 9 })
      local v = gm.mat(3, { displaced_to = base, displacement = 2 })
      local p = tmpname()
      spit(p, "(:MAT :SIZE 3 :CTYPE :DOUBLE)" .. payload("double", { 1, 2, 3 }))
      read_from(p, v)
      assert.same({ 9, 9, 1, 2, 3, 9, 9, 9 }, values(base))
    end)

    it("makes the foreign facet the only up-to-date one", function()
      local m = gm.mat(2, { initial_element = 1 })
      local p = tmpname()
      spit(p, "(:MAT :SIZE 2 :CTYPE :DOUBLE)" .. payload("double", { 4, 5 }))
      read_from(p, m)
      local info = m:find_facet("foreign")
      assert.is_true(info.up_to_date)
      assert.equal("output", info.direction)
    end)

    it("makes a device facet stale (emulated device)", function()
      if not gm.with_cuda then return pending("with_cuda is not available") end
      gm.with_cuda({ backend = "emulated" }, function()
        local m = gm.mat(2, { initial_element = 1 })
        gm.with_facet(m, "cuda", "io", function() end)
        assert.is_true(m:find_facet("cuda").up_to_date)
        local p = tmpname()
        spit(p, "(:MAT :SIZE 2 :CTYPE :DOUBLE)" .. payload("double", { 4, 5 }))
        read_from(p, m)
        assert.is_false(m:find_facet("cuda").up_to_date)
        assert.same({ 4, 5 }, values(m))
      end)
    end)

    describe("leaves the mat unchanged on", function()
      local cases = {
        { "a size mismatch", "(:MAT :SIZE 6 :CTYPE :DOUBLE)" .. payload("double", xs),
          "read_mat: header size 6 does not match the mat's size 4" },
        { "a ctype mismatch", "(:MAT :SIZE 4 :CTYPE :FLOAT)" .. payload("float", { 1, 2, 3, 4 }),
          "read_mat: header ctype :FLOAT does not match the mat's ctype :DOUBLE" },
        { "garbage", "hello world, this is not a mat",
          "read_mat: bad mat header: expected '(:MAT ...)', got byte 104" },
        { "a header that is not a mat header", "(:FOO :SIZE 4 :CTYPE :DOUBLE)" .. payload("double", { 1, 2, 3, 4 }),
          "read_mat: bad mat header: expected :MAT first" },
        { "an unknown ctype", "(:MAT :SIZE 4 :CTYPE :HALF)" .. payload("double", { 1, 2, 3, 4 }),
          "read_mat: bad mat header: unknown :CTYPE :HALF" },
        { "a bad size", "(:MAT :SIZE -4 :CTYPE :DOUBLE)" .. payload("double", { 1, 2, 3, 4 }),
          "read_mat: bad mat header: :SIZE -4 is not a size" },
        { "a missing key", "(:MAT :SIZE 4)" .. payload("double", { 1, 2, 3, 4 }),
          "read_mat: bad mat header: missing :SIZE or :CTYPE" },
        { "a truncated header", "(:MAT :SIZE 4 :CT",
          "read_mat: short read: the mat header is truncated" },
        { "an empty file", "", "read_mat: short read: expected a mat header, got end of file" },
        { "a short read", "(:MAT :SIZE 4 :CTYPE :DOUBLE)" .. payload("double", { 1, 2, 3 }) .. "abc",
          "read_mat: short read: expected 32 bytes of double data, got 27" },
      }
      for _, case in ipairs(cases) do
        it(case[1], function()
          local base = gm.mat(6, { initial_contents = { 10, 11, 12, 13, 14, 15 } })
          local v = gm.mat(4, { displaced_to = base, displacement = 1 })
          local p = tmpname()
          spit(p, case[2])
          assert.has_error(function() read_from(p, v) end, case[3])
          assert.same({ 10, 11, 12, 13, 14, 15 }, values(base))
        end)
      end

      it("a short read without headers", function()
        gm.mat_headers = false
        local m = gm.mat(3, { ctype = "float", initial_contents = { 1, 2, 3 } })
        local p = tmpname()
        spit(p, payload("float", { 7, 8 }))
        assert.has_error(function() read_from(p, m) end,
          "read_mat: short read: expected 12 bytes of float data, got 8")
        assert.same({ 1, 2, 3 }, values(m))
      end)
    end)

    it("rejects bad arguments", function()
      assert.has_error(function() gm.read_mat(gm.mat(1), 3) end,
        "bad argument #2 to 'read_mat' (file handle expected, got number)")
      assert.has_error(function() gm.read_mat({}, io.stdin) end,
        "bad argument #1 to 'read_mat' (gpumat.mat expected, got table)")
    end)
  end)

  describe("npy", function()
    it("writes numpy.save's exact bytes", function()
      local m = gm.mat({ 2, 3 }, { initial_contents = { { 1.5, -2, 3.25 }, { 0, 1e30, -0.1 } } })
      local p = tmpname()
      gm.save_npy(m, p)
      local header = npy_header("<f8", false, "(2, 3)", 2)
      assert.equal(128, #header) -- numpy's data offset for small arrays
      assert.equal(header .. payload("double", xs), slurp(p))
    end)

    it("writes rank-1 float shapes as (n,)", function()
      local m = gm.mat(3, { ctype = "float", initial_contents = { 1, 2, 3 } })
      local p = tmpname()
      m:save_npy(p)
      local s = slurp(p)
      assert.equal(npy_header("<f4", false, "(3,)", 3) .. payload("float", { 1, 2, 3 }), s)
      assert.truthy(s:find("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 1, true))
    end)

    it("writes the visible part of a displaced view with its dims", function()
      local base = gm.mat(10, { initial_contents = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 } })
      local v = gm.mat({ 1, 2, 2 }, { displaced_to = base, displacement = 5 })
      local p = tmpname()
      gm.save_npy(v, p)
      assert.equal(npy_header("<f8", false, "(1, 2, 2)", 1) .. payload("double", { 5, 6, 7, 8 }), slurp(p))
    end)

    for _, ctype in ipairs { "float", "double" } do
      it("round-trips " .. ctype, function()
        local m = gm.mat({ 2, 1, 3 }, { ctype = ctype })
        for k = 1, 6 do m:set_row_major(k, xs[k]) end
        local p = tmpname()
        gm.save_npy(m, p)
        local r = gm.load_npy(p)
        assert.equal(ctype, r:ctype())
        assert.same({ 2, 1, 3 }, r:dims())
        assert.same(values(m), values(r))
      end)
    end

    it("loads files built in plain Lua, with other header spacing", function()
      local p = tmpname()
      local dict = "{\"shape\": (2,2),'fortran_order':False, 'descr':'<f4'}"
      local hlen = #dict + 1
      spit(p, "\x93NUMPY\x01\x00" .. string.pack("<I2", hlen) .. dict .. "\n" .. payload("float", { 1, 2, 3, 4 }))
      local m = gm.load_npy(p)
      assert.equal("float", m:ctype())
      assert.same({ { 1, 2 }, { 3, 4 } }, m:to_table())
    end)

    it("loads version 2.0 headers", function()
      local p = tmpname()
      local dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (), }"
      spit(p, "\x93NUMPY\x02\x00" .. string.pack("<I4", #dict + 1) .. dict .. "\n" .. payload("double", { 42 }))
      local m = gm.load_npy(p)
      assert.same({}, m:dims())
      assert.equal(42, m:row_major_mref(1))
    end)

    local function npy_file(descr, fortran, shape_repr, data)
      local p = tmpname()
      spit(p, npy_header(descr, fortran, shape_repr, 2) .. data)
      return p
    end

    it("rejects other dtypes, Fortran order, bad magic and truncation", function()
      local four = payload("double", { 1, 2, 3, 4 })
      assert.has_error(function() gm.load_npy(npy_file("<c32", false, "(2, 2)", four)) end,
        "load_npy: unsupported .npy dtype '<c32' (gpumat reads '|b1', '|i1', '<i2', '<i4', '<i8', '|u1', '<u2', '<u4', '<u8', '<f2', '<f4', '<f8', '<c8' and '<c16')")
      assert.has_error(function() gm.load_npy(npy_file(">f8", false, "(2, 2)", four)) end,
        "load_npy: unsupported .npy dtype '>f8' (gpumat reads '|b1', '|i1', '<i2', '<i4', '<i8', '|u1', '<u2', '<u4', '<u8', '<f2', '<f4', '<f8', '<c8' and '<c16')")
      assert.has_error(function() gm.load_npy(npy_file("<f8", true, "(2, 2)", four)) end,
        "load_npy: fortran_order .npy arrays are not supported (save in C order)")
      assert.has_error(function() gm.load_npy(npy_file("<f8", false, "(2, 2)", four:sub(1, 20))) end,
        "load_npy: truncated .npy file: the header claims 4 elements (32 bytes), the file holds 20 bytes of data")
      local p = tmpname()
      spit(p, "\x93NUMPZ\x01\x00" .. ("x"):rep(100))
      assert.has_error(function() gm.load_npy(p) end, "load_npy: not a .npy file (bad magic)")
      spit(p, npy_header("<f8", false, "(2, 2)", 2):sub(1, 40))
      assert.has_error(function() gm.load_npy(p) end,
        "load_npy: truncated .npy file: expected 118 bytes of header, got 30")
      spit(p, "\x93NUMPY\x01")
      assert.has_error(function() gm.load_npy(p) end,
        "load_npy: truncated .npy file: expected 8 bytes of magic, got 7")
      spit(p, "\x93NUMPY\x04\x00\x10\x00")
      assert.has_error(function() gm.load_npy(p) end, "load_npy: unsupported .npy version 4.0")
      spit(p, npy_header("<f8", false, "(1, 2, 1, 1, 1, 1, 1, 1, 1)", 1))
      assert.has_error(function() gm.load_npy(p) end, "load_npy: .npy rank exceeds the maximum 8")
      spit(p, npy_header("<f8", false, "[2, 2]", 2) .. four)
      assert.has_error(function() gm.load_npy(p) end, "load_npy: bad .npy header: shape must be a tuple")
    end)

    it("rejects bad arguments and unreadable paths", function()
      assert.has_error(function() gm.save_npy(gm.mat(1), nil) end,
        "bad argument #2 to 'save_npy' (path string expected, got nil)")
      assert.has_error(function() gm.load_npy(3) end,
        "bad argument #1 to 'load_npy' (path string expected, got number)")
      assert.has_error(function() gm.load_npy("x", { ctype = "float" }) end,
        "bad argument #2 to 'load_npy' (unknown option 'ctype')")
      assert.has_error(function() gm.load_npy("/nonexistent/dir/x.npy") end,
        "load_npy: cannot open '/nonexistent/dir/x.npy': No such file or directory")
      assert.has_error(function() gm.save_npy(gm.mat(1), "/nonexistent/dir/x.npy") end,
        "save_npy: cannot open '/nonexistent/dir/x.npy' for writing: No such file or directory")
    end)
  end)
end)
