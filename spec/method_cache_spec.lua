-- A mat whose methods are looked up often (16 lookups) gets its own method
-- cache (src/lua/l_mat.c): its own metatable whose __index is a per-mat
-- table, so m:mref(i, j) is a table hit instead of a C __index call.  The
-- mat must behave exactly as before: same getmetatable, same methods,
-- element access, operators, errors after free, collection, and the C
-- functions that recognize mats.  At most 1024 mats hold a cache at once.
local gm = require "gpumat"

local mat_mt = getmetatable(gm.mat(1))

-- debug.getmetatable sees through __metatable: true when m has its own
local function has_cache(m) return debug.getmetatable(m) ~= mat_mt end

local function heat(m)
  for _ = 1, 20 do local _ = m.size end
  return m
end

describe("per-mat method cache", function()
  it("a mat looked up often gets one; a fresh mat does not", function()
    local m = gm.mat({ 2, 3 }, { ctype = "double", initial_element = 1 })
    assert.is_false(has_cache(m))
    for _ = 1, 15 do local _ = m.dims end
    assert.is_false(has_cache(m))
    local _ = m.dims
    assert.is_true(has_cache(m))
    assert.are.equal(mat_mt, getmetatable(m)) -- Lua code sees one mat type
  end)

  it("methods, elements, operators and printing behave as on a fresh mat", function()
    for _, ctype in ipairs { "float", "double" } do
      local contents = { { 1, 2, 3 }, { 4, 5, 6 } }
      local m = heat(gm.mat({ 2, 3 }, { ctype = ctype, initial_contents = contents }))
      local f = gm.mat({ 2, 3 }, { ctype = ctype, initial_contents = contents })
      assert.is_true(has_cache(m))
      assert.is_false(has_cache(f))
      assert.are.same({ f:dims() }, { m:dims() })
      assert.are.equal(f:ctype(), m:ctype())
      assert.are.equal(6, m:mref(2, 3))
      assert.are.equal(4, m[4])
      assert.are.equal(5, m[{ 2, 2 }])
      assert.are.equal(6, #m)
      assert.is_nil(m.no_such_method)
      -- a boolean key raises as on a fresh mat (not a subscript yet: B2)
      assert.has_error(function() return m[true] end)
      assert.has_error(function() return f[true] end)
      m[1] = 10
      m[{ 2, 1 }] = 40
      m:set(1, 2, 20)
      assert.are.same({ { 10, 20, 3 }, { 40, 5, 6 } }, m:to_table())
      assert.are.same({ { 11, 21, 4 }, { 41, 6, 7 } }, (m + 1):to_table())
      assert.are.same({ { -10, -20, -3 }, { -40, -5, -6 } }, (-m):to_table())
      assert.is_truthy(tostring(m):find("^#<MAT 2x3 " .. ctype .. " "), tostring(m))
      assert.are.equal(gm.format_mat(gm.mat({ 2, 3 }, { ctype = ctype, initial_contents = { { 10, 20, 3 }, { 40, 5, 6 } } })),
        gm.format_mat(m))
      -- C functions recognize it: BLAS (check_mat_at), facets, copy
      m:scal_(2)
      assert.are.equal(80, m[4])
      local c = gm.copy_mat(m)
      assert.are.same(m:to_table(), c:to_table())
      assert.are.equal("userdata", gm.with_facet(m, "foreign", "input", function(p) return type(p) end))
      assert.are.same({ "userdata", "userdata" },
        gm.with_facets({ { m, "foreign", "input" }, { f, "foreign", "input" } }, function(p, q) return { type(p), type(q) } end))
      assert.is_false(gm.is_freed(m))
      -- the same method objects as everyone else's
      assert.are.equal(f.mref, m.mref)
      assert.are.equal(gm.mref, m.mref)
    end
  end)

  it("a freed mat with a cache gives the freed-mat errors", function()
    local m = heat(gm.mat(4, { initial_element = 1 }))
    assert.is_true(has_cache(m))
    local _ = m.mref -- cached now
    m:free()
    assert.is_true(gm.is_freed(m))
    assert.has_error(function() return m:mref(1) end, "bad argument #1 to 'mref' (attempt to use a freed mat)")
    assert.has_error(function() return m[1] end, "bad argument #1 to 'mref' (attempt to use a freed mat)")
    assert.has_error(function() m[1] = 2 end, "bad argument #1 to 'set' (attempt to use a freed mat)")
    assert.are.equal("#<MAT freed>", tostring(m))
  end)

  it("a mat with a cache is collected and frees its memory", function()
    collectgarbage()
    collectgarbage()
    local before = gm.counters().n_host_arrays
    do
      local m = heat(gm.mat(1000, { initial_element = 1 }))
      m[1] = 2 -- the host array exists now
      assert.is_true(has_cache(m))
      assert.are.equal(before + 1, gm.counters().n_host_arrays)
    end
    collectgarbage()
    collectgarbage()
    assert.are.equal(before, gm.counters().n_host_arrays)
  end)

  it("at most 1024 mats hold a cache at once; collected ones give theirs back", function()
    collectgarbage()
    collectgarbage()
    local ms, n = {}, 0
    for i = 1, 1100 do
      ms[i] = heat(gm.mat(1))
      if has_cache(ms[i]) then n = n + 1 end
      assert.are.equal(1, #ms[i]) -- with or without a cache
      assert.are.equal(0, ms[i]:mref(1))
    end
    assert.is_true(n <= 1024 and n >= 1024 - 64, ("%d mats with a cache"):format(n))
    assert.is_false(has_cache(ms[1100]))
    ms = nil
    collectgarbage()
    collectgarbage()
    assert.is_true(has_cache(heat(gm.mat(1))))
  end)
end)
