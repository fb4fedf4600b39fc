-- Metamethods are functions too: getmetatable(m).__gc(x) and the like are
-- reachable from Lua (getmetatable, debug.getmetatable, the registry) and
-- must check their arguments like any function (as liolib's tofile does):
-- a clean error naming the function, never a crash.  Every metatable of
-- every gpumat type is enumerated, so a new type or metamethod is covered
-- without editing this file.
local gm = require "gpumat"

-- a mat whose method lookups made it a per-mat method cache (l_mat.c)
local function hot_mat()
  local m = gm.mat(4, { initial_element = 2 })
  for _ = 1, 20 do local _ = m.size end
  assert(debug.getmetatable(m) ~= getmetatable(m))
  return m
end

-- Makes the metatables that are created on first use: the guard's (any
-- guarded call) and the error objects' (the first resource error).
local function make_lazy_metatables()
  local _ = tostring(gm.mat(1))
  if not debug.getregistry()["gpumat.error"] then
    pcall(gm.with_cuda, { backend = "emulated", n_pool_bytes = 1024 }, function() gm.mat(1 << 20):fill_(1) end)
  end
  assert(debug.getregistry()["gpumat.guard"] and debug.getregistry()["gpumat.error"])
end

-- every metatable of the module's types, with a name for the messages
local function metatables()
  make_lazy_metatables()
  local list, seen = {}, {}
  local function add(name, t)
    if type(t) == "table" and not seen[t] then
      seen[t] = true
      list[#list + 1] = { name = name, mt = t }
    end
  end
  for k, v in pairs(debug.getregistry()) do
    if type(k) == "string" and k:match("^gpumat") then add(k, v) end
  end
  local hot = hot_mat()
  add("per-mat metatable", debug.getmetatable(hot))
  add("method cache metatable", getmetatable(debug.getmetatable(hot).__index))
  add("module metatable", getmetatable(gm))
  local k = gm.define_cuda_kernel { name = "spec_mm_kernel", params = { { "x", "mat", "io" } },
    body = "x[0] = 1;" }
  add("kernel metatable", getmetatable(k))
  -- (a body that does not compile raises at its first CPU launch)
  local bad = gm.define_cuda_kernel { name = "spec_mm_bad", params = { { "x", "mat", "io" } }, body = "not C" }
  local ok, e = pcall(bad, gm.mat(1))
  assert(not ok and type(e) == "table")
  add("kernel error metatable", getmetatable(e))
  return list
end

-- the names a metamethod's message may carry (element access reports the
-- method it stands for)
local names = {
  __index = { "__index", "mref" }, __newindex = { "__newindex", "set" }, __len = { "__len", "size" },
}

-- the arguments the VM passes to each metamethod (binary ones: 2)
local nargs = { __gc = 1, __tostring = 1, __pairs = 1, __call = 1, __newindex = 3 }

-- values that are no instance of any gpumat type
local strangers = { 0, -1, 2.5, "x", {}, true, print, io.stdout, coroutine.create(print),
  setmetatable({}, { __index = function() error("hostile __index ran") end }) }

local function names_function(err, key)
  for _, n in ipairs(names[key] or { key }) do
    if tostring(err):find("bad argument #%d+ to '" .. n:gsub("%p", "%%%0") .. "' %(") then return true end
  end
  return false
end

describe("metamethods called directly", function()
  it("__gc with anything but a mat raises", function()
    local m = gm.mat(3)
    local gc = getmetatable(m).__gc
    for _, x in ipairs({ 1, "s", {}, true, gm.mat }) do
      local ok, e = pcall(gc, x)
      assert.is_false(ok)
      assert.matches("bad argument #1 to '__gc' %(gpumat.mat expected, got ", e)
    end
    local ok, e = pcall(gc)
    assert.is_false(ok)
    assert.matches("bad argument #1 to '__gc' %(gpumat.mat expected, got no value%)", e)
    assert.are.equal(3, m:size())
  end)

  it("every function of every metatable rejects a stranger as its first argument #outermost", function()
    local checked = 0
    for _, e in ipairs(metatables()) do
      for key, f in pairs(e.mt) do
        if type(f) == "function" then
          for _, x in ipairs(strangers) do
            -- as many arguments as the VM passes (a second operand: a stranger too)
            local ok, err = pcall(f, table.unpack({ x, x, x }, 1, nargs[key] or 2))
            assert(not ok, e.name .. "." .. key .. " accepted a " .. type(x))
            assert(names_function(err, key), e.name .. "." .. key .. ": " .. tostring(err))
            checked = checked + 1
          end
        end
      end
    end
    assert.is_true(checked > 100)
  end)

  it("every function of every metatable rejects one argument too many", function()
    local m = hot_mat()
    local pmt = debug.getmetatable(m)
    local cases = {
      { pmt.__gc, "__gc", gm.mat(1), 1 },
      { pmt.__close, "__close", gm.mat(1), 2 },
      { pmt.__len, "__len", m, 2 },
      { pmt.__pairs, "__pairs", m, 1 },
      { pmt.__tostring, "__tostring", m, 1 },
      { pmt.__newindex, "__newindex", m, 3 },
      { pmt.__add, "__add", m, 2 },
      { pmt.__unm, "__unm", m, 2 },
      { getmetatable(m).__index, "__index", m, 2 },
      { getmetatable(pmt.__index).__index, "__index", pmt.__index, 2 },
      { getmetatable(gm.random_state()).__eq, "__eq", gm.random_state(), 2 },
      { getmetatable(gm.random_state()).__tostring, "__tostring", gm.random_state(), 1 },
      { getmetatable(gm.make_foreign_array(2)).__tostring, "__tostring", gm.make_foreign_array(2), 1 },
      { getmetatable(gm.alloc_cache()).__gc, "__gc", gm.alloc_cache(), 1 },
    }
    for _, c in ipairs(cases) do
      local f, name, self, n = c[1], c[2], c[3], c[4]
      local args = { self, self, self, self, self }
      local ok, err = pcall(f, table.unpack(args, 1, n + 1))
      assert.is_false(ok, name)
      assert.matches(("bad argument #%d to '%s' %%(no value expected%%)"):format(n + 1, name), err)
    end
  end)

  it("__index of a method cache: a mat element, a method or a clean error", function()
    local m = hot_mat()
    local cache = debug.getmetatable(m).__index
    local index = getmetatable(cache).__index
    assert.are.equal(2, index(cache, 1))
    assert.is_nil(index(cache, 5))
    assert.are.equal(gm.size, index(cache, "size"))
    local ok, e = pcall(index, 1, "size")
    assert.is_false(ok)
    assert.matches("bad argument #1 to '__index' %(method cache expected, got number%)", e)
  end)

  it("freed mats: __gc and __close are idempotent, the others raise", function()
    local m = gm.mat(2)
    m:free()
    local mt = getmetatable(m)
    assert.is_true(pcall(mt.__gc, m))
    assert.is_true(pcall(mt.__close, m))
    assert.are.equal("#<MAT freed>", tostring(m))
    for _, f in ipairs({ function() return #m end, function() return m[1] end, function() m[1] = 0 end,
      function() return pairs(m) end, function() return -m end, function() return m + 1 end }) do
      local ok, e = pcall(f)
      assert.is_false(ok)
      assert.matches("attempt to use a freed mat", e)
    end
  end)

  it("the module table's __index/__newindex take the module and a key", function()
    local mt = getmetatable(gm)
    assert.is_nil(gm[{}])
    assert.is_nil(gm[1])
    local ok, e = pcall(mt.__newindex, {}, "x", 1)
    assert.is_false(ok)
    assert.matches("bad argument #1 to '__newindex'", e)
    ok, e = pcall(mt.__index, gm, "x", 1)
    assert.is_false(ok)
    assert.matches("bad argument #3 to '__index' %(no value expected%)", e)
  end)

  it("error objects' __tostring takes an error object #outermost", function()
    make_lazy_metatables()
    local mt = debug.getregistry()["gpumat.error"]
    local ok, e = pcall(mt.__tostring, {})
    assert.is_false(ok)
    assert.matches("bad argument #1 to '__tostring' %(gpumat error object expected, got table%)", e)
  end)
end)

describe("m[k], ipairs(m) and pairs(m) as for a Lua sequence", function()
  it("m[k] out of range is nil; writing there raises", function()
    for _, ctype in ipairs({ "float", "double" }) do
      local m = gm.mat({ 2, 3 }, { ctype = ctype, initial_contents = { { 1, 2, 3 }, { 4, 5, 6 } } })
      assert.are.equal(6, m[6])
      assert.is_nil(m[7])
      assert.is_nil(m[0])
      assert.is_nil(m[-1])
      assert.is_nil(m[math.maxinteger])
      assert.is_nil(m[math.mininteger])
      assert.has_error(function() return m[1.5] end, "bad argument #2 to 'mref' (index must be an integer, got number)")
      assert.has_error(function() m[7] = 1 end, "bad argument #2 to 'set' (index 7 is out of range 1..6)")
      assert.has_error(function() m:mref(3, 1) end, "bad argument #2 to 'mref' (subscript 3 is out of range 1..2 on axis 1)")
      assert.has_error(function() return m[{ 3, 1 }] end,
        "bad argument #2 to 'mref' (subscript 3 is out of range 1..2 on axis 1)")
      assert.has_error(function() m:set(1, 4, 0) end, "bad argument #3 to 'set' (subscript 4 is out of range 1..3 on axis 2)")
      assert.are.same({ { 1, 2, 3 }, { 4, 5, 6 } }, m:to_table())
    end
  end)

  it("ipairs, pairs and for i = 1, #m visit every element in row-major order", function()
    local m = gm.mat({ 2, 2 }, { initial_contents = { { 1, 2 }, { 3, 4 } } })
    for _, mm in ipairs({ m, hot_mat() }) do
      local expect = mm:to_table()
      if type(expect[1]) == "table" then expect = { 1, 2, 3, 4 } end
      local by_ipairs, by_pairs, by_len = {}, {}, {}
      for i, v in ipairs(mm) do by_ipairs[#by_ipairs + 1] = { i, v } end
      for k, v in pairs(mm) do by_pairs[#by_pairs + 1] = { k, v } end
      for i = 1, #mm do by_len[#by_len + 1] = { i, mm[i] } end
      local want = {}
      for i, v in ipairs(expect) do want[i] = { i, v } end
      assert.are.same(want, by_ipairs)
      assert.are.same(want, by_pairs)
      assert.are.same(want, by_len)
    end
  end)

  it("ipairs and pairs of an empty mat and of a displaced view", function()
    local n = 0
    for _ in ipairs(gm.mat({ 0, 3 })) do n = n + 1 end
    for _ in pairs(gm.mat({ 3, 0 })) do n = n + 1 end
    assert.are.equal(0, n)
    local base = gm.mat(6, { initial_contents = { 1, 2, 3, 4, 5, 6 } })
    local v = gm.mat(2, { displaced_to = base, displacement = 3 })
    local got = {}
    for k, x in pairs(v) do got[k] = x end
    assert.are.same({ 4, 5 }, got)
  end)

  it("the pairs iterator checks its arguments", function()
    local m = gm.mat(2)
    local next_fn, state, init = pairs(m)
    assert.are.equal(m, state)
    assert.are.equal(0, init)
    local ok, e = pcall(next_fn, 1, 0)
    assert.is_false(ok)
    assert.matches("bad argument #1 to '__pairs' %(gpumat.mat expected, got number%)", e)
    ok, e = pcall(next_fn, m, "x")
    assert.is_false(ok)
    assert.matches("bad argument #2 to '__pairs' %(integer expected, got string%)", e)
    assert.is_nil(next_fn(m, 2))
    assert.is_nil(next_fn(m, -5))
  end)
end)
