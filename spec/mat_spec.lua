local gm = require "gpumat"

local tol = {float = 1e-6, double = 1e-12}

local function close(ctype, expected, actual)
  local t = tol[ctype] * math.max(1, math.abs(expected))
  assert(math.abs(expected - actual) <= t,
    ("%s: expected %.17g, got %.17g"):format(ctype, expected, actual))
end

local function close_list(ctype, expected, actual)
  assert.are.equal(#expected, #actual)
  for i = 1, #expected do close(ctype, expected[i], actual[i]) end
end

-- The whole storage of m (through a full view).
local function storage(m)
  return m:reshape_and_displace(m:max_size(), 0):to_table()
end

for _, ctype in ipairs {"float", "double"} do
  describe("mats (" .. ctype .. ")", function()
    it("gm.mat with dims and readers", function()
      local m = gm.mat({2, 3}, {ctype = ctype})
      assert.are.equal(ctype, m:ctype())
      assert.are.same({2, 3}, m:dims())
      assert.are.equal(2, m:dim(1))
      assert.are.equal(3, m:dim(2))
      assert.are.equal(6, m:size())
      assert.are.equal(6, #m)
      assert.are.equal(6, m:max_size())
      assert.are.equal(0, m:displacement())
      assert.are.equal(0, m:initial_element())
      assert.are.same({{0, 0, 0}, {0, 0, 0}}, m:to_table())
      local v = gm.mat(5, {ctype = ctype})
      assert.are.same({5}, v:dims())
    end)

    it("initial_element fills, coerced to the ctype", function()
      local m = gm.mat({2, 2}, {ctype = ctype, initial_element = 0.1})
      close(ctype, gm.coerce_to_ctype(0.1, ctype), m:initial_element())
      for _, x in ipairs(m:to_table()[1]) do assert.are.equal(gm.coerce_to_ctype(0.1, ctype), x) end
      if ctype == "float" then assert.are_not.equal(0.1, m:mref(1, 1)) end
      close(ctype, 0.1, m:mref(2, 2))
    end)

    it("initial_element = false leaves storage uninitialised but usable", function()
      local m = gm.mat(3, {ctype = ctype, initial_element = false})
      assert.is_false(m:initial_element())
      m:replace_({1, 2, 3})
      assert.are.same({1, 2, 3}, m:to_table())
    end)

    it("initial_contents with nested tables and mat leaves", function()
      local m = gm.mat({2, 3}, {ctype = ctype, initial_contents = {{1, 2, 3}, {4, 5, 6}}})
      assert.are.same({{1, 2, 3}, {4, 5, 6}}, m:to_table())
      local row = gm.mat(3, {ctype = ctype, initial_contents = {7, 8, 9}})
      local n = gm.mat({2, 3}, {ctype = ctype, initial_contents = {row, {1.5, 2.5, 3.5}}})
      assert.are.same({{7, 8, 9}, {1.5, 2.5, 3.5}}, n:to_table())
      -- MGL's example: a 2d leaf inside a 1x2x3 mat
      local leaf = gm.mat({2, 3}, {ctype = ctype, initial_contents = {{1, 2, 3}, {4, 5, 6}}})
      local c = gm.mat({1, 2, 3}, {ctype = ctype, initial_contents = {leaf}})
      assert.are.same({{{1, 2, 3}, {4, 5, 6}}}, c:to_table())
      -- a displaced view as a leaf contributes its visible part only
      local v = row:reshape_and_displace(2, 1)
      local d = gm.mat(3, {ctype = ctype, initial_contents = {v, 0}})
      assert.are.same({8, 9, 0}, d:to_table())
    end)

    it("displacement and max_size make invisible elements", function()
      local m = gm.mat(3, {ctype = ctype, displacement = 2, max_size = 7, initial_element = 4,
                           initial_contents = {1, 2, 3}})
      assert.are.equal(2, m:displacement())
      assert.are.equal(7, m:max_size())
      assert.are.same({1, 2, 3}, m:to_table())
      assert.are.same({4, 4, 1, 2, 3, 4, 4}, storage(m))
    end)

    it("displaced_to with relative and negative displacement", function()
      local base = gm.mat(10, {ctype = ctype, initial_element = 5, displacement = 1, max_size = 11})
      local v = gm.mat(6, {displaced_to = base, displacement = 2})
      assert.are.equal(3, v:displacement()) -- relative to base's displacement
      assert.are.equal(ctype, v:ctype())
      assert.are.equal(11, v:max_size())
      for i = 1, 6 do v[i] = i end
      assert.are.same({5, 5, 1, 2, 3, 4, 5, 6, 5, 5}, base:to_table())
      local w = gm.mat(2, {displaced_to = base, displacement = -1})
      assert.are.equal(0, w:displacement())
      assert.are.same({5, 5}, w:to_table()) -- an invisible element of base
      w[1] = -7
      assert.are.same({-7, 5, 5, 1, 2, 3, 4, 5, 6, 5, 5}, storage(base))
      assert.are.same({5, 5, 1, 2, 3, 4, 5, 6, 5, 5}, base:to_table())
    end)

    it("mref/set and row_major_mref/set_row_major are 1-based and bounds-checked", function()
      local m = gm.mat({2, 3}, {ctype = ctype})
      assert.are.equal(m, m:set(1, 2, 2.5))
      assert.are.equal(m, m:set_row_major(6, -1))
      assert.are.equal(2.5, m:mref(1, 2))
      assert.are.equal(2.5, m:row_major_mref(2))
      assert.are.equal(-1, m:mref(2, 3))
      assert.are.equal(5, m:row_major_index(2, 2))
      assert.are.equal(1, m:row_major_index(1, 1))
      assert.are.same({{0, 2.5, 0}, {0, 0, -1}}, m:to_table())
      close(ctype, 0.3, m:set(2, 1, 0.3):mref(2, 1))
    end)

    it("m[k], m[{i, j}] and #m sugar", function()
      local m = gm.mat({2, 2}, {ctype = ctype})
      m[1] = 1
      m[{2, 1}] = 3
      m[{1, 2}] = 2
      m[4] = 4
      assert.are.equal(1, m[{1, 1}])
      assert.are.equal(3, m[3])
      assert.are.equal(2, m[2])
      assert.are.equal(4, m[{2, 2}])
      assert.are.equal(4, #m)
      assert.are.same({{1, 2}, {3, 4}}, m:to_table())
    end)

    it("element access on a displaced view leaves invisible elements unchanged", function()
      local m = gm.mat(6, {ctype = ctype, initial_contents = {1, 2, 3, 4, 5, 6}})
      local v = m:reshape_and_displace({2, 2}, 1)
      v[{1, 1}] = 20
      v[4] = 50
      assert.are.same({1, 20, 3, 4, 50, 6}, m:to_table())
      assert.are.equal(20, v:mref(1, 1))
      assert.are.equal(4, v:row_major_mref(3))
      assert.are.equal(4, #v)
    end)

    it("array_to_mat, mat_to_array and replace_", function()
      local m = gm.array_to_mat({{1, 2}, {3, 4}, {5, 6}}, {ctype = ctype})
      assert.are.same({3, 2}, m:dims())
      assert.are.equal(ctype, m:ctype())
      assert.are.same({{1, 2}, {3, 4}, {5, 6}}, gm.mat_to_array(m))
      assert.are.equal(m, m:replace_({{6, 5}, {4, 3}, {2, 1}}))
      assert.are.same({{6, 5}, {4, 3}, {2, 1}}, m:to_table())
      assert.are.equal(m, gm.replace_(m, {1, 1, 1, 1, 1, 1}))
      close_list(ctype, {1, 1}, m:to_table()[3])
      local v = gm.array_to_mat({0.1, 0.2}, {ctype = ctype})
      close_list(ctype, {0.1, 0.2}, v:to_table())
    end)

    it("replace_ and writes on a displaced view keep invisible elements; values round to the ctype", function()
      local m = gm.mat(7, {ctype = ctype, initial_element = 9})
      local v = m:reshape_and_displace({2, 2}, 2)
      assert.are.equal(v, v:replace_({{0.1, 0.2}, {0.3, 0.4}}))
      local c = function(x) return gm.coerce_to_ctype(x, ctype) end
      assert.are.same({9, 9, c(0.1), c(0.2), c(0.3), c(0.4), 9}, m:to_table())
      assert.are.equal(c(0.3), v[{2, 1}])
      v[{2, 2}] = 1 / 3
      assert.are.equal(c(1 / 3), m[6])
      if ctype == "float" then assert.are_not.equal(1 / 3, m[6]) end
      assert.are.same({9, 9}, {m[1], m[2]})
      assert.are.equal(9, m[7])
    end)

    it("rank-0 mats hold one element", function()
      local s = gm.mat({}, {ctype = ctype, initial_element = 3})
      assert.are.same({}, s:dims())
      assert.are.equal(1, s:size())
      assert.are.equal(3, s:mref())
      s:set(4)
      assert.are.equal(4, s:mref())
      assert.are.equal(4, s:to_table())
      assert.are.equal(4, s:row_major_mref(1))
    end)

    it("cuda_enabled is a per-mat flag", function()
      local m = gm.mat(2, {ctype = ctype})
      assert.is_true(m:cuda_enabled())
      assert.are.equal(m, m:set_cuda_enabled(false))
      assert.is_false(m:cuda_enabled())
      assert.is_false(gm.mat(1, {cuda_enabled = false}):cuda_enabled())
      assert.is_false(m:reshape(1):cuda_enabled()) -- views inherit it
    end)
  end)
end

describe("module defaults", function()
  it("default_ctype applies to new mats", function()
    assert.are.equal("double", gm.default_ctype)
    gm.default_ctype = "float"
    local ok, err = pcall(function()
      assert.are.equal("float", gm.mat(1):ctype())
      assert.are.equal("float", gm.array_to_mat({1}):ctype())
    end)
    gm.default_ctype = "double"
    assert(ok, err)
  end)

  -- settings belong to the Lua state; a coroutine is the same state
  it("a coroutine shares its state's settings both ways", function()
    local co = coroutine.wrap(function()
      assert.are.equal("double", gm.mat(1):ctype())
      gm.default_ctype = "float"
      gm.print_max_elements = 3
      coroutine.yield(gm.mat(1):ctype())
      assert.are.equal("double", gm.default_ctype) -- the main code's write
      return gm.mat(1):ctype()
    end)
    local ok, err = pcall(function()
      assert.are.equal("float", co())
      assert.are.equal("float", gm.mat(1):ctype())
      assert.are.equal(3, gm.print_max_elements)
      gm.default_ctype = "double"
      assert.are.equal("double", co())
    end)
    gm.default_ctype = "double"
    gm.print_max_elements = 1000
    assert(ok, err)
  end)

  it("coerce_to_ctype rounds through float", function()
    assert.are.equal(0.1, gm.coerce_to_ctype(0.1, "double"))
    assert.are.equal(0.10000000149011612, gm.coerce_to_ctype(0.1, "float"))
  end)
end)

-- API.md "Module fields": every field reads its default, accepts a valid
-- write (read back), rejects a bad one by message leaving the value, and
-- the read-only ones raise.
describe("module fields", function()
  local fields = {
    -- name, default, a valid other value, a bad value, message
    {"default_ctype", "double", "float", "int", 'gpumat.default_ctype must be "float" or "double"'},
    {"print_mat", true, false, 1, "gpumat.print_mat must be a boolean, got number"},
    {"print_mat_facets", true, false, "no", "gpumat.print_mat_facets must be a boolean, got string"},
    {"print_max_elements", 1000, 10, -1, "gpumat.print_max_elements must be an integer >= 0"},
    {"mat_headers", true, false, 0, "gpumat.mat_headers must be a boolean, got number"},
    {"cuda_enabled", true, false, "yes", "gpumat.cuda_enabled must be a boolean, got string"},
    {"default_mat_cuda_enabled", true, false, 1, "gpumat.default_mat_cuda_enabled must be a boolean, got number"},
    {"default_synchronization", "maybe", false, "always",
      'gpumat.default_synchronization must be true, false or "maybe"'},
    {"foreign_array_strategy", "static", "cuda_host", "pinned",
      'gpumat.foreign_array_strategy must be "static" or "cuda_host"'},
    {"cuda_default_device_id", 0, 1, -1, "gpumat.cuda_default_device_id must be an integer in 0..1023"},
    {"cuda_default_random_seed", 1234, 7, 1.5, "gpumat.cuda_default_random_seed must be an integer >= 0"},
    {"cuda_default_n_random_states", 4096, 64, 0, "gpumat.cuda_default_n_random_states must be an integer >= 1"},
    {"syncing_cuda_facets_safe", true, false, "x", "gpumat.syncing_cuda_facets_safe must be a boolean, got string"},
    {"let_input_through", false, true, 1, "gpumat.let_input_through must be a boolean, got number"},
    {"let_output_through", false, true, 1, "gpumat.let_output_through must be a boolean, got number"},
    {"maybe_synchronize", true, false, "x", "gpumat.maybe_synchronize must be a boolean, got string"},
  }

  for _, f in ipairs(fields) do
    local name, default, other, bad, msg = f[1], f[2], f[3], f[4], f[5]
    it(name .. " reads, writes and validates #host", function()
      assert.are.equal(default, gm[name])
      local ok, err = pcall(function()
        gm[name] = other
        assert.are.equal(other, gm[name])
        gm[name] = default
        -- the error points at the assignment, names the field, keeps the value
        local line = debug.getinfo(1, "l").currentline + 1
        local ok2, e = pcall(function() gm[name] = bad end)
        assert.is_false(ok2)
        assert.are.equal(("spec/mat_spec.lua:%d: %s"):format(line, msg), e)
        assert.are.equal(default, gm[name])
        -- numbers in strings are not numbers
        if type(default) == "number" then
          assert.has_error(function() gm[name] = tostring(other) end, msg)
        end
      end)
      gm[name] = default
      assert(ok, err)
    end)
  end

  it("supported_ctypes and version are read-only", function()
    assert.are.same({"float", "double", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
      "complex64", "complex128", "float16", "bfloat16"}, gm.supported_ctypes)
    assert.are.equal("0.1.0", gm.version)
    assert.has_error(function() gm.supported_ctypes = {"float"} end, "gpumat.supported_ctypes is read-only")
    assert.has_error(function() gm.version = "9" end, "gpumat.version is read-only")
    assert.are.equal("0.1.0", gm.version)
    -- a copy: changing it changes nothing
    gm.supported_ctypes[1] = "int"
    assert.are.same({"float", "double", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
      "complex64", "complex128", "float16", "bfloat16"}, gm.supported_ctypes)
  end)

  it("settings steer new mats: default_synchronization, default_mat_cuda_enabled", function()
    local ok, err = pcall(function()
      gm.default_synchronization = true
      assert.is_true(gm.mat(1):synchronization())
      assert.is_true(gm.array_to_mat({1}):synchronization())
      gm.default_synchronization = false
      assert.is_false(gm.mat(1):synchronization())
      gm.default_mat_cuda_enabled = false
      assert.is_false(gm.mat(1):cuda_enabled())
      assert.is_false(gm.array_to_mat({1}):cuda_enabled())
    end)
    gm.default_synchronization = "maybe"
    gm.default_mat_cuda_enabled = true
    assert(ok, err)
    assert.are.equal("maybe", gm.mat(1):synchronization())
  end)

  it("counters() reports host arrays and bytes", function()
    local function check()
      local c0 = gm.counters()
      for _, k in ipairs {"n_memcpy_host_to_device", "n_memcpy_device_to_host", "device_bytes_in_use",
                          "device_bytes_pooled", "n_device_arrays", "host_bytes_in_use", "n_host_arrays", "n_ooms"} do
        assert.are.equal("number", type(c0[k]), k)
      end
      local m = gm.mat(100, {ctype = "float"})
      assert.are.equal(c0.n_host_arrays, gm.counters().n_host_arrays) -- lazy: nothing yet
      m[1] = 1
      local c1 = gm.counters()
      assert.are.equal(c0.n_host_arrays + 1, c1.n_host_arrays)
      assert.are.equal(c0.host_bytes_in_use + 400, c1.host_bytes_in_use)
      m:free()
      local c2 = gm.counters()
      assert.are.equal(c0.n_host_arrays, c2.n_host_arrays)
      assert.are.equal(c0.host_bytes_in_use, c2.host_bytes_in_use)
    end
    -- no collection of other tests' garbage mats in between
    collectgarbage("collect")
    collectgarbage("stop")
    local ok, err = pcall(check)
    collectgarbage("restart")
    assert(ok, err)
  end)
end)
