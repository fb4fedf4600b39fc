local gm = require "gpumat"

-- Every failing call below must leave its arguments as they were.
describe("mat errors", function()
  it("rejects unknown option keys", function()
    assert.has_error(function() gm.mat(2, {ctypes = "float"}) end,
      "bad argument #2 to 'mat' (unknown option 'ctypes')")
    assert.has_error(function() gm.mat(2, {[1] = 3}) end,
      "bad argument #2 to 'mat' (unknown option 'number')")
    assert.has_error(function() gm.array_to_mat({1}, {displacement = 1}) end,
      "bad argument #2 to 'array_to_mat' (unknown option 'displacement')")
    assert.has_error(function() gm.foreign_room({verbos = true}) end,
      "bad argument #1 to 'foreign_room' (unknown option 'verbos')")
    assert.has_error(function() gm.mat_room({verbos = true}) end,
      "bad argument #1 to 'mat_room' (unknown option 'verbos')")
  end)

  it("rejects wrong types", function()
    assert.has_error(function() gm.mat("2") end,
      "bad argument #1 to 'mat' (dimensions must be an integer or a list, got string)")
    assert.has_error(function() gm.mat(2.5) end,
      "bad argument #1 to 'mat' (dimension must be an integer, got number)")
    assert.has_error(function() gm.mat(2, 3) end,
      "bad argument #2 to 'mat' (options table expected, got number)")
    assert.has_error(function() gm.mat(2, {initial_element = "1"}) end,
      "bad argument #2 to 'mat' (option 'initial_element' must be a number or false, got string)")
    assert.has_error(function() gm.mat(2, {initial_element = true}) end,
      "bad argument #2 to 'mat' (option 'initial_element' must be a number or false, got boolean)")
    assert.has_error(function() gm.mat(2, {cuda_enabled = 1}) end,
      "bad argument #2 to 'mat' (option 'cuda_enabled' must be a boolean, got number)")
    assert.has_error(function() gm.mat(2, {synchronization = "always"}) end,
      "bad argument #2 to 'mat' (option 'synchronization' must be true, false or \"maybe\")")
    assert.has_error(function() gm.mat(2, {displaced_to = {}}) end,
      "bad argument #2 to 'mat' (option 'displaced_to' must be a mat, got table)")
    assert.has_error(function() gm.mat(2, {initial_contents = {1, "2"}}) end,
      "bad argument #2 to 'mat' (contents must be numbers, mats or nested tables, got string)")
    assert.has_error(function() gm.array_to_mat(gm.mat(1)) end,
      "bad argument #1 to 'array_to_mat' (table expected, got userdata)")
    local m = gm.mat(2)
    assert.has_error(function() m:set(1, "x") end, "bad argument #3 to 'set' (number expected, got string)")
    assert.has_error(function() m[1] = "x" end, "bad argument #3 to 'set' (number expected, got string)")
    assert.has_error(function() m:mref("a") end, "bad argument #2 to 'mref' (subscript must be an integer, got string)")
    assert.has_error(function() m:set_cuda_enabled(1) end)
    assert.has_error(function() gm.size({}) end, "bad argument #1 to 'size' (gpumat.mat expected, got table)")
    assert.are.same({0, 0}, m:to_table())
  end)

  it("rejects bad ctypes", function()
    assert.has_error(function() gm.mat(2, {ctype = "int"}) end,
      "bad argument #2 to 'mat' (option 'ctype' must be \"float\" (\"float32\"), \"double\" (\"float64\"), \"bool\", \"int8\", \"int16\", \"int32\", \"int64\", \"uint8\", \"uint16\", \"uint32\" or \"uint64\", got int)")
    assert.has_error(function() gm.mat(2, {ctype = 1}) end,
      "bad argument #2 to 'mat' (option 'ctype' must be \"float\" (\"float32\"), \"double\" (\"float64\"), \"bool\", \"int8\", \"int16\", \"int32\", \"int64\", \"uint8\", \"uint16\", \"uint32\" or \"uint64\", got number)")
    assert.has_error(function() gm.coerce_to_ctype(1, "half") end,
      "bad argument #2 to 'coerce_to_ctype' (ctype must be \"float\" (\"float32\"), \"double\" (\"float64\"), \"bool\", \"int8\", \"int16\", \"int32\", \"int64\", \"uint8\", \"uint16\", \"uint32\" or \"uint64\", got half)")
    assert.has_error(function() gm.default_ctype = "int" end)
    assert.are.equal("double", gm.default_ctype)
    assert.has_error(function() gm.mat(2, {displaced_to = gm.mat(4), ctype = "float"}) end,
      "bad argument #2 to 'mat' (ctype and max_size cannot go with displaced_to)")
  end)

  it("rejects negative sizes", function()
    assert.has_error(function() gm.mat(-1) end,
      "bad argument #1 to 'mat' (dimension must be non-negative, got -1)")
    assert.has_error(function() gm.mat({2, -3}) end,
      "bad argument #1 to 'mat' (dimension 2 must be non-negative, got -3)")
    assert.has_error(function() gm.mat(2, {max_size = -1}) end,
      "bad argument #2 to 'mat' (option 'max_size' must be non-negative, got -1)")
    assert.has_error(function() gm.mat(4, {max_size = 3}) end,
      "bad argument #2 to 'mat' (max_size 3 is smaller than displacement 0 + size 4)")
    assert.has_error(function() gm.mat({1, 1, 1, 1, 1, 1, 1, 1, 1}) end,
      "bad argument #1 to 'mat' (rank 9 exceeds 8)")
  end)

  it("rejects out-of-range indices", function()
    local m = gm.mat({2, 3}, {initial_contents = {{1, 2, 3}, {4, 5, 6}}})
    assert.has_error(function() m:mref(3, 1) end,
      "bad argument #2 to 'mref' (subscript 3 is out of range 1..2 on axis 1)")
    assert.has_error(function() m:mref(1, 0) end,
      "bad argument #3 to 'mref' (subscript 0 is out of range 1..3 on axis 2)")
    assert.has_error(function() m:mref(1) end, "bad argument #2 to 'mref' (expected 2 subscripts, got 1)")
    assert.has_error(function() m:set(2, 4, 0) end,
      "bad argument #3 to 'set' (subscript 4 is out of range 1..3 on axis 2)")
    assert.has_error(function() m:row_major_mref(7) end,
      "bad argument #2 to 'row_major_mref' (index 7 is out of range 1..6)")
    assert.has_error(function() m:set_row_major(0, 1) end,
      "bad argument #2 to 'set_row_major' (index 0 is out of range 1..6)")
    assert.is_nil(m[7]) -- m[k] past the end is nil, as for a Lua sequence; writing raises
    assert.has_error(function() m[7] = 0 end, "bad argument #2 to 'set' (index 7 is out of range 1..6)")
    assert.has_error(function() return m[{1, 4}] end,
      "bad argument #2 to 'mref' (subscript 4 is out of range 1..3 on axis 2)")
    assert.has_error(function() m[{3, 1}] = 0 end,
      "bad argument #2 to 'set' (subscript 3 is out of range 1..2 on axis 1)")
    assert.has_error(function() m[0] = 0 end, "bad argument #2 to 'set' (index 0 is out of range 1..6)")
    assert.has_error(function() m:dim(3) end, "bad argument #2 to 'dim' (axis 3 is out of range 1..2)")
    assert.has_error(function() m:row_major_index(1, 5) end,
      "bad argument #3 to 'row_major_index' (subscript 5 is out of range 1..3 on axis 2)")
    -- a displaced view is bounds-checked against its visible dims
    local v = m:reshape_and_displace(2, 4)
    assert.is_nil(v[3])
    assert.has_error(function() v[3] = 0 end, "bad argument #2 to 'set' (index 3 is out of range 1..2)")
    assert.are.same({{1, 2, 3}, {4, 5, 6}}, m:to_table())
  end)

  it("rejects negative and oversize displacements", function()
    local base = gm.mat(4, {displacement = 1, max_size = 6})
    assert.has_error(function() gm.mat(2, {displacement = -1}) end,
      "bad argument #2 to 'mat' (option 'displacement' must be non-negative, got -1)")
    assert.has_error(function() gm.mat(2, {displaced_to = base, displacement = -2}) end,
      "bad argument #2 to 'mat' (displacement -2 makes the absolute displacement negative (-1))")
    assert.has_error(function() gm.mat(4, {displaced_to = base, displacement = 2}) end,
      "bad argument #2 to 'mat' (displaced mat (displacement 3 + size 4) does not fit the storage of 6 elements)")
    assert.has_error(function() gm.mat(2, {displacement = 3, max_size = 4}) end,
      "bad argument #2 to 'mat' (max_size 4 is smaller than displacement 3 + size 2)")
    assert.has_error(function() base:displace(3) end,
      "bad argument #2 to 'displace' (displacement 3 + size 4 exceeds max_size 6)")
    assert.are.equal(1, base:displacement())
  end)

  it("raises 'attempt to use a freed mat' on any use after free", function()
    local m = gm.mat(2)
    m:free()
    m:free() -- idempotent
    assert.is_true(m:is_freed())
    local msg = "attempt to use a freed mat"
    for _, f in ipairs {
      function() return m:size() end, function() return #m end, function() return m[1] end,
      function() m[1] = 1 end, function() return m:mref(1) end, function() return m:to_table() end,
      function() return m:reshape(1) end, function() return m:facets() end,
      function() return gm.with_facet(m, "foreign", "input", function() end) end,
      function() return gm.mat(1, {displaced_to = m}) end, function() return gm.mat(2, {initial_contents = {m}}) end,
      function() return m:dims() end, function() return m:destroy() end,
    } do
      local ok, err = pcall(f)
      assert.is_false(ok)
      assert.matches(msg, err, 1, true)
    end
    assert.has_error(function() return m:ctype() end, "bad argument #1 to 'ctype' (attempt to use a freed mat)")
    assert.are.equal("#<MAT freed>", tostring(m))
  end)

  it("closes a <close> mat at the end of its scope, also on error", function()
    local outer
    do
      local m <close> = gm.mat(3)
      outer = m
      assert.is_false(m:is_freed())
    end
    assert.is_true(outer:is_freed())
    local ok = pcall(function()
      local m <close> = gm.mat(3)
      outer = m
      error("x")
    end)
    assert.is_false(ok)
    assert.is_true(outer:is_freed())
  end)

  it("a failing call changes nothing", function()
    local m = gm.mat({2, 2}, {initial_contents = {{1, 2}, {3, 4}}})
    local before = m:facets()
    assert.has_error(function() m:replace_({1, 2, 3}) end,
      "bad argument #2 to 'replace_' (contents have 3 elements, mat has 4)")
    assert.has_error(function() m:replace_({1, 2, 3, "x"}) end,
      "bad argument #2 to 'replace_' (contents must be numbers, mats or nested tables, got string)")
    assert.has_error(function() m:reshape_and_displace_({3, 3}, 0) end)
    assert.has_error(function() m:adjust_({2}, -1) end,
      "bad argument #3 to 'adjust_' (displacement must be non-negative, got -1)")
    assert.has_error(function() m:set(1, 1, {}) end)
    assert.are.same({{1, 2}, {3, 4}}, m:to_table())
    assert.are.same({2, 2}, m:dims())
    assert.are.equal(0, m:displacement())
    assert.are.equal(before, m:facets())
    local u = gm.mat(2)
    assert.has_error(function() u:replace_({1}) end)
    assert.are.equal("-", u:facets()) -- no facet created by a rejected write
  end)
end)

describe("mat errors by message", function()
  it("names the function and the module argument number, also for method calls", function()
    local m = gm.mat(2)
    assert.has_error(function() m:set_cuda_enabled(1) end,
      "bad argument #2 to 'set_cuda_enabled' (boolean expected, got number)")
    assert.has_error(function() gm.set_cuda_enabled(m, nil) end,
      "bad argument #2 to 'set_cuda_enabled' (boolean expected, got nil)")
    assert.has_error(function() gm.free(nil) end, "bad argument #1 to 'free' (gpumat.mat expected, got nil)")
    assert.has_error(function() m.free(3) end, "bad argument #1 to 'free' (gpumat.mat expected, got number)")
    assert.has_error(function() gm.is_freed("m") end, "bad argument #1 to 'is_freed' (gpumat.mat expected, got string)")
    assert.has_error(function() m.foo = 1 end,
      "bad argument #2 to 'set' (cannot assign field 'foo' of a mat (use an index or {i, j, ...}))")
    assert.has_error(function() m[true] = 1 end,
      "bad argument #2 to 'set' (cannot assign a boolean key of a mat (use an index or {i, j, ...}))")
    assert.is_nil(m["1"])
    assert.has_error(function() return m[1.5] end, "bad argument #2 to 'mref' (index must be an integer, got number)")
    assert.has_error(function() return m:row_major_mref("1") end,
      "bad argument #2 to 'row_major_mref' (index must be an integer, got string)")
    assert.has_error(function() return m:dim("1") end, "bad argument #2 to 'dim' (axis must be an integer, got string)")
    assert.has_error(function() return m:dim(2) end, "bad argument #2 to 'dim' (axis 2 is out of range 1..1)")
    assert.has_error(function() m:reshape_and_displace_({3, 3}, 0) end,
      "bad argument #3 to 'reshape_and_displace_' (displacement 0 + size 9 exceeds max_size 2)")
    assert.has_error(function() m:set(1, 1, {}) end, "bad argument #4 to 'set' (number expected, got table)")
    assert.has_error(function() m:set(2) end, "bad argument #2 to 'set' (expected 1 subscripts, got 0)")
    assert.has_error(function() gm.default_ctype = "int" end, 'gpumat.default_ctype must be "float" or "double"')
    assert.are.same({0, 0}, m:to_table())
  end)

  it("prints out-of-range integers exactly (no truncation to int)", function()
    local m = gm.mat(2)
    assert.has_error(function() m[2 ^ 40] = 0 end, "bad argument #2 to 'set' (index 1099511627776 is out of range 1..2)")
    assert.has_error(function() return m:mref(-(2 ^ 33)) end,
      "bad argument #2 to 'mref' (subscript -8589934592 is out of range 1..2 on axis 1)")
    assert.has_error(function() gm.mat(2, {displacement = -(2 ^ 40)}) end,
      "bad argument #2 to 'mat' (option 'displacement' must be non-negative, got -1099511627776)")
    assert.has_error(function() m:displace(2 ^ 40) end,
      "bad argument #2 to 'displace' (displacement 1099511627776 + size 2 exceeds max_size 2)")
  end)

  it("rejects huge sizes and displacements without overflow", function()
    local base = gm.mat(6)
    assert.has_error(function() gm.mat(2, {displaced_to = base, displacement = math.maxinteger}) end,
      "bad argument #2 to 'mat' (displacement 9223372036854775807 does not fit the storage of 6 elements)")
    assert.has_error(function() gm.mat(2, {displaced_to = base, displacement = math.mininteger}) end,
      "bad argument #2 to 'mat' (displacement -9223372036854775808 makes the absolute displacement negative "
        .. "(-9223372036854775808))")
    assert.has_error(function() gm.mat(2, {displacement = math.maxinteger}) end,
      "bad argument #2 to 'mat' (displacement 9223372036854775807 is too large)")
    assert.has_error(function() gm.mat(2, {max_size = 2 ^ 62}) end,
      "bad argument #2 to 'mat' (max_size 4611686018427387904 is too large)")
    assert.has_error(function() gm.mat({2 ^ 40, 2 ^ 40}) end, "bad argument #1 to 'mat' (dimensions are too large (dimension 2 is 1099511627776))")
    assert.has_error(function() base:reshape_and_displace(2, math.maxinteger) end,
      "bad argument #3 to 'reshape_and_displace' (displacement 9223372036854775807 + size 2 exceeds max_size 6)")
  end)

  it("rejects synchronization with displaced_to (the storage is shared)", function()
    local base = gm.mat(4, {synchronization = false})
    assert.has_error(function() gm.mat(2, {displaced_to = base, synchronization = true}) end,
      "bad argument #2 to 'mat' (synchronization cannot go with displaced_to (the storage is shared))")
    assert.is_false(gm.mat(2, {displaced_to = base}):synchronization())
  end)

  it("contents whose metamethods raise leave the mat unchanged", function()
    local m = gm.mat(2, {initial_contents = {1, 2}})
    local evil = setmetatable({}, {__len = function() return 2 end, __index = function() error("boom") end})
    local ok, err = pcall(m.replace_, m, evil)
    assert.is_false(ok)
    assert.matches("boom", err)
    assert.are.same({1, 2}, m:to_table())
    local lying = setmetatable({}, {__len = function() return 2 end, __index = function() return 7 end})
    assert.are.same({7, 7}, m:replace_(lying):to_table())
    assert.has_error(function() gm.mat(2, {displaced_to = m, cuda_enabled = "yes"}) end,
      "bad argument #2 to 'mat' (option 'cuda_enabled' must be a boolean, got string)")
  end)

  it("array_to_mat rejects ragged nesting even when the count matches", function()
    assert.has_error(function() gm.array_to_mat({{1}, {2, 3}, {}}) end,
      "bad argument #1 to 'array_to_mat' (contents are not rectangular (a list at depth 2 has 2 entries, expected 1))")
    assert.has_error(function() gm.array_to_mat({{1, 2}, 3}) end,
      "bad argument #1 to 'array_to_mat' (contents are not rectangular (a number at depth 2, expected a list of 2))")
    assert.has_error(function() gm.array_to_mat({1, {2}}) end,
      "bad argument #1 to 'array_to_mat' (contents are not rectangular (a list at depth 2, expected a number))")
    assert.are.same({{1, 2}, {3, 4}}, gm.array_to_mat({{1, 2}, {3, 4}}):to_table())
    assert.are.same({{}, {}}, gm.array_to_mat({{}, {}}):to_table())
    assert.are.same({2, 0}, gm.array_to_mat({{}, {}}):dims())
  end)
end)

describe("functions of the contract that were listed in missing.lua", function()
  local gm = require "gpumat"
  it("define_cuda_kernel is implemented and checks its argument", function()
    local ok, err = pcall(gm.define_cuda_kernel, 1)
    assert.is_false(ok)
    assert.equals("bad argument #1 to 'define_cuda_kernel' (table expected, got number)", err)
  end)
end)
