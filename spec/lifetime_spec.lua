local gm = require "gpumat"

local function full_gc()
  collectgarbage()
  collectgarbage()
end

-- Number of host arrays and their bytes, parsed from foreign_room's
-- concise report ("f: 3 (1,024)"), after collecting garbage from earlier
-- specs so only live mats count.
local function host_arrays()
  full_gc()
  local n, bytes = gm.foreign_room({verbose = false}):match("^f: ([%d,]+) %(([%d,]+)%)")
  return tonumber((n:gsub(",", ""))), tonumber((bytes:gsub(",", "")))
end

describe("mat lifetime", function()
  it("a collected view never frees storage other views use", function()
    local base = gm.mat(100, {initial_element = 1})
    base[50] = 7
    for i = 1, 20 do
      local v = base:reshape_and_displace(10, 40)
      v[1] = i
      local w = gm.mat(5, {displaced_to = v, displacement = 1})
      w[1] = -i
    end
    full_gc()
    assert.are.equal(20, base[41])
    assert.are.equal(-20, base[42])
    assert.are.equal(7, base[50])
    assert.are.equal("F", base:facets())
  end)

  it("storage lives until the last view goes, however they are freed", function()
    local n0 = host_arrays()
    local m = gm.mat(64, {initial_element = 2})
    m[1] = 3
    assert.are.equal(n0 + 1, host_arrays())
    local v = m:reshape(8)
    local w = m:displace(0)
    m:free()
    full_gc()
    assert.are.equal(n0 + 1, host_arrays())
    assert.are.equal(3, v[1])
    w = nil -- luacheck: ignore
    full_gc()
    assert.are.equal(n0 + 1, host_arrays())
    assert.are.same({3, 2, 2, 2, 2, 2, 2, 2}, v:to_table())
    v:free()
    assert.are.equal(n0, host_arrays())
  end)

  it("__gc after free is a no-op and garbage mats release their storage", function()
    local n0, b0 = host_arrays()
    do
      local m = gm.mat(1000, {ctype = "float"})
      m[1] = 1
      assert.are.equal(b0 + 4000, select(2, host_arrays()))
      m:free()
    end
    for _ = 1, 50 do
      local m = gm.mat(10)
      m[1] = 1
    end
    full_gc()
    assert.are.equal(n0, host_arrays())
    assert.are.equal(b0, select(2, host_arrays()))
  end)

  it("<close> drops only this view's reference", function()
    local keep
    do
      local m <close> = gm.mat(4, {initial_contents = {1, 2, 3, 4}})
      keep = m:reshape_and_displace(2, 2)
    end
    full_gc()
    assert.are.same({3, 4}, keep:to_table())
  end)

  it("a never-touched mat owns no memory", function()
    local n0, b0 = host_arrays()
    local m = gm.mat(1e6)
    assert.are.equal(n0, host_arrays())
    assert.are.equal(b0, select(2, host_arrays()))
    assert.are.equal("-", m:facets())
  end)
end)

describe("with_mat_counters", function()
  it("counts mats and the bytes they may need, nested, and returns fn's results", function()
    local count, n_bytes, r1, r2 = gm.with_mat_counters(function()
      gm.mat({2, 3}, {ctype = "double"})
      local c1, b1 = gm.with_mat_counters(function()
        gm.mat(7, {ctype = "float"})
      end)
      assert.are.equal(1, c1)
      assert.are.equal(7 * 4, b1)
      return "a", "b"
    end)
    assert.are.equal(2, count)
    assert.are.equal(2 * 3 * 8 + 7 * 4, n_bytes)
    assert.are.equal("a", r1)
    assert.are.equal("b", r2)
  end)

  it("counts max_size bytes, not visible ones, and no views", function()
    local base
    local count, n_bytes = gm.with_mat_counters(function()
      base = gm.mat(3, {displacement = 2, max_size = 10, ctype = "float"})
      base:reshape(2)
      gm.mat(2, {displaced_to = base})
      gm.array_to_mat({1, 2, 3})
    end)
    assert.are.equal(2, count)
    assert.are.equal(10 * 4 + 3 * 8, n_bytes)
    local c0, b0 = gm.with_mat_counters(function() end)
    assert.are.equal(0, c0)
    assert.are.equal(0, b0)
  end)

  it("checks its argument", function()
    assert.has_error(function() gm.with_mat_counters() end,
      "bad argument #1 to 'with_mat_counters' (function expected, got nil)")
  end)
end)

describe("room reports", function()
  it("foreign_room reports host arrays and bytes in MGL's layout", function()
    local n0, b0 = host_arrays()
    local m = gm.mat(1000)
    m[1] = 0
    local n, b = host_arrays()
    assert.are.equal(n0 + 1, n)
    assert.are.equal(b0 + 8000, b)
    local text = gm.foreign_room()
    assert.matches("^Foreign memory usage:\nforeign arrays: [%d,]+ %(used bytes: [%d,]+%)\n$", text)
    assert.are.equal(text, gm.foreign_room({verbose = true}))
    -- thousands separators
    local big = gm.mat(200000)
    big[1] = 1
    assert.matches("%d,%d%d%d,%d%d%d", gm.foreign_room({verbose = false}))
    big:free()
    m:free()
  end)

  it("mat_room combines foreign_room and cuda_room when present", function()
    local text = gm.mat_room()
    assert.are.equal(1, select(2, text:gsub("Foreign memory usage:", "")))
    if rawget(gm, "cuda_room") then
      assert.are.equal(gm.foreign_room() .. gm.cuda_room({verbose = true}), text)
    else
      assert.are.equal(gm.foreign_room(), text)
    end
    local concise = gm.mat_room({verbose = false})
    assert.matches("^f: ", concise)
    assert.has_error(function() gm.mat_room({verbose = 1}) end,
      "bad argument #1 to 'mat_room' (option 'verbose' must be a boolean, got number)")
    assert.has_error(function() gm.mat_room(1) end,
      "bad argument #1 to 'mat_room' (options table expected, got number)")
  end)
end)
