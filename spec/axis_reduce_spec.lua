-- Reductions along an axis (m:sum(axis) ... m:argmin(axis), gm.logsumexp,
-- gm.softmax) and their whole-mat forms, against a plain-Lua reference.
-- Run on the host and, with GPUMAT_DEVICE=emulated, on the emulated
-- device's kernels (spec/helper.lua wraps each test in with_cuda);
-- spec/device_ops.lua compares the two directly.
local gm = require "gpumat"

local TOL = require("blas_ref").tol -- the ctype list's tolerance column
local CTYPES = { "float", "double" }

local function close(e, a, ctype)
  if e ~= e then return a ~= a end
  if e == a then return true end
  return math.abs(e - a) <= TOL[ctype] * math.max(1, math.abs(e), math.abs(a))
end

local flatten = require("strided_mats").flat

local function product(dims, from, to)
  local p = 1
  for i = from, to do p = p * dims[i] end
  return p
end

-- Values exact in float, with ties: ((k * 37) % 23 - 11) / 8 * scale.
-- Read-only uses share one mat per (ctype, dims, scale): fewer
-- allocations keep the suite's aggressive-GC pass fast; `fresh` for a
-- mat the test writes.
local made = {}
local function make(ctype, dims, scale, fresh)
  local key = ctype .. table.concat(dims, "x") .. "*" .. (scale or 1)
  if made[key] and not fresh then return made[key][1], made[key][2] end
  local n = product(dims, 1, #dims)
  local t = {}
  for k = 1, n do t[k] = ((k * 37) % 23 - 11) / 8 * (scale or 1) end
  local m = gm.mat(dims, { ctype = ctype, initial_contents = t })
  if not fresh then made[key] = { m, t } end
  return m, t
end

-- The reduction of column values v (a Lua list) by op.
-- the references: one table keyed by op name (spec/op_refs.lua)
local refs = require "op_refs"
local function ref_column(op, v, ddof) return refs[op](v, nil, ddof) end

-- Reference of op along 1-based axis of a flat row-major list t with dims.
local function ref_reduce(op, t, dims, axis, ddof)
  local outer, len, inner = product(dims, 1, axis - 1), dims[axis], product(dims, axis + 1, #dims)
  local out = {}
  for o = 0, outer - 1 do
    for j = 0, inner - 1 do
      local v = {}
      for k = 0, len - 1 do v[#v + 1] = t[(o * len + k) * inner + j + 1] end
      out[o * inner + j + 1] = ref_column(op, v, ddof or 0)
    end
  end
  return out
end

local function ref_softmax(t, dims, axis)
  local outer, len, inner = product(dims, 1, axis - 1), dims[axis], product(dims, axis + 1, #dims)
  local out = {}
  for o = 0, outer - 1 do
    for j = 0, inner - 1 do
      local v = {}
      for k = 0, len - 1 do v[#v + 1] = t[(o * len + k) * inner + j + 1] end
      local lse = ref_column("logsumexp", v, 0)
      for k = 0, len - 1 do
        local i = (o * len + k) * inner + j + 1
        out[i] = math.exp(t[i] - lse)
      end
    end
  end
  return out
end

local function result_dims(dims, axis, keepdims)
  local d = {}
  for i, n in ipairs(dims) do
    if i ~= axis then d[#d + 1] = n elseif keepdims then d[#d + 1] = 1 end
  end
  return d
end

local function assert_values(expected, m, ctype, what)
  local got = flatten(m:to_table())
  assert.are.equal(#expected, #got, what .. ": number of elements")
  for i = 1, #expected do -- one assertion for the first difference (luassert calls are slow)
    if not close(expected[i], got[i], ctype) then
      assert.is_true(false, ("%s: element %d: expected %s, got %s"):format(what, i, expected[i], got[i]))
    end
  end
end

local OPS = { "sum", "mean", "prod", "max", "min", "var", "std", "argmax", "argmin", "logsumexp" }

local function call(op, m, axis, opts)
  if op == "logsumexp" then return gm.logsumexp(m, axis, opts) end
  return m[op](m, axis, opts)
end

local function check_op(op, ctype, dims, axis, opts)
  local m, t = make(ctype, dims, op == "prod" and 0.5 or 1)
  local r = call(op, m, axis, opts)
  local pos = axis < 0 and axis + #dims + 1 or axis
  local what = ("%s(%d) of %s %s"):format(op, axis, table.concat(dims, "x"), ctype)
  assert.are.same(result_dims(dims, pos, opts and opts.keepdims), r:dims(), what .. ": dims")
  local arg = op == "argmax" or op == "argmin"
  assert.are.equal(arg and "int64" or ctype, r:ctype(), what .. ": ctype")
  assert_values(ref_reduce(op, t, dims, pos, opts and opts.unbiased and 1 or 0), r, arg and "double" or ctype, what)
end

describe("reductions along an axis", function()
  for _, op in ipairs(OPS) do
    it(op .. " along axes 1, 2 and -1 of a matrix, and every axis of a 3-d mat", function()
      for _, ct in ipairs(CTYPES) do
        for _, axis in ipairs { 1, 2, -1 } do check_op(op, ct, { 4, 6 }, axis) end
        for _, axis in ipairs { 1, 2, 3, -1, -2 } do check_op(op, ct, { 3, 4, 5 }, axis) end
      end
    end)
  end

  it("keepdims keeps the axis with length 1", function()
    for _, ct in ipairs(CTYPES) do
      for _, op in ipairs(OPS) do
        check_op(op, ct, { 3, 4, 5 }, 2, { keepdims = true })
        check_op(op, ct, { 4, 6 }, -1, { keepdims = true })
      end
    end
  end)

  it("keepdims results broadcast back: m / m:sum(2, {keepdims = true})", function()
    for _, ct in ipairs(CTYPES) do
      local m = gm.mat({ 2, 3 }, { ctype = ct, initial_contents = { { 1, 2, 3 }, { 4, 5, 6 } } })
      local r = m / m:sum(2, { keepdims = true })
      assert_values({ 1 / 6, 2 / 6, 3 / 6, 4 / 15, 5 / 15, 6 / 15 }, r, ct, "rows normalized")
      local c = m - m:mean(1, { keepdims = true })
      assert_values({ -1.5, -1.5, -1.5, 1.5, 1.5, 1.5 }, c, ct, "columns centred")
    end
  end)

  it("var and std are the population ones unless unbiased", function()
    for _, ct in ipairs(CTYPES) do
      for _, op in ipairs { "var", "std" } do
        check_op(op, ct, { 4, 6 }, 2, { unbiased = true })
        check_op(op, ct, { 3, 4, 5 }, 1, { unbiased = true, keepdims = true })
      end
      local m = gm.mat({ 1, 4 }, { ctype = ct, initial_contents = { { 1, 2, 3, 4 } } })
      assert.is_true(close(1.25, m:var(2)[1], ct))
      assert.is_true(close(5 / 3, m:var(2, { unbiased = true })[1], ct))
      assert.is_true(close(math.sqrt(5 / 3), m:std(2, { unbiased = true })[1], ct))
    end
  end)

  it("long rows, many columns and big mats (lanes, tiles and threads)", function()
    for _, ct in ipairs(CTYPES) do
      -- device: 32 lanes per row, several column tiles of 32; small enough
      -- for the suite's aggressive-GC pass (Lua references)
      for _, op in ipairs { "sum", "argmin", "var", "logsumexp" } do
        check_op(op, ct, { 5, 300 }, 2)
        check_op(op, ct, { 100, 37 }, 1)
        check_op(op, ct, { 2, 40, 70 }, 2)
      end
    end
  end)

  -- 2700 x 3 columns: on the emulated device the GPU's block form with the
  -- axis split over grid y and the partial results merged (the CPU model
  -- keeps that form up to 8K elements, kernels/launch.h)
  it("columns whose axis is split over blocks (merged partial results)", function()
    for _, ct in ipairs(CTYPES) do
      local rows = 2700
      local c = gm.range(1, rows * 3, 1, { ctype = ct }):reshape({ rows, 3 })
      local sums = c:sum(1):to_table()
      for j = 1, 3 do assert.is_true(close(3 * (rows - 1) * rows / 2 + rows * j, sums[j], ct)) end
      assert.are.same({ rows, rows, rows }, c:argmax(1):to_table())
      assert.are.same({ 1, 1, 1 }, c:argmin(1):to_table())
      local p = gm.softmax(c / (rows * 3), 1) -- columns sum to 1
      for j = 1, 3 do assert.is_true(close(1, p:sum(1)[j], ct)) end
    end
  end)

  -- The host cuts an axis into segments of 2^20 elements (rows) or
  -- 2^20 / columns rows (column tiles) and merges their partial results.
  -- The data comes from gm.range, with references in closed form (no
  -- million-element Lua tables).
  local LONG = (1 << 20) + 4321
  it("axes longer than one host segment (merged partial results)", function()
    for _, ct in ipairs(CTYPES) do
      local n = LONG
      local r = gm.range(1, n, 1, { ctype = ct }):reshape({ 1, n })
      assert.is_true(close(n * (n + 1) / 2, r:sum(2)[1], ct))
      assert.is_true(close((n * n - 1) / 12, r:var(2)[1], ct))
      assert.is_true(close(n, r:argmax(2)[1], "double"))
      assert.is_true(close(n, r:max(2)[1], ct))
      local rows, cols = 26300, 40 -- column tiles: 26214 rows per segment
      local c = gm.range(1, rows * cols, 1, { ctype = ct }):reshape({ rows, cols })
      local sums, vars = c:sum(1):to_table(), c:var(1, { unbiased = true }):to_table()
      for j = 1, cols do
        assert.is_true(close(rows * j + cols * (rows - 1) * rows / 2, sums[j], ct))
        assert.is_true(close(cols * cols * rows * (rows + 1) / 12, vars[j], ct))
      end
      assert.are.same({ rows, rows, rows }, { c:argmax(1)[1], c:argmax(1)[20], c:argmax(1)[40] })
      assert.are.equal(1, c:argmin(1)[40])
      local m = gm.mat({ LONG }, { ctype = ct, initial_element = 0 })
      m[5] = -1; m[LONG - 9] = -1; m[(1 << 20) + 7] = 3; m[LONG - 1] = 3
      assert.are.equal((1 << 20) + 7, m:argmax(1)[1])
      assert.are.equal(5, m:argmin(1)[1])
      assert.are.equal((1 << 20) + 7, m:argmax())
      assert.are.equal(5, m:argmin())
      m[(1 << 20) + 2] = 0 / 0; m[LONG - 3] = 0 / 0
      assert.are.equal((1 << 20) + 2, m:argmax())
      assert.are.equal((1 << 20) + 2, m:argmin(1)[1])
      assert.is_true(m:max(1)[1] ~= m:max(1)[1])
    end
  end)

  -- On the emulated device, column reductions of more than 64K elements
  -- take the CPU model's tiles of 16 columns, whose max/min/argmax/argmin
  -- compare a whole tile branch-free: ties keep the first row, the first
  -- NaN wins, -0 ties 0; the last two columns are a partial tile (the
  -- general fold). The host gives the same.
  it("extremes of big column reductions: ties, NaN, signed zeros, a partial tile", function()
    local rows, cols = 2000, 50
    for _, ct in ipairs { "float", "double", "int32", "int64" } do
      local float = ct == "float" or ct == "double"
      local c = gm.zeros({ rows, cols }, { dtype = ct })
      local want_max, want_min = {}, {}
      for j = 1, cols do
        local top, bot = 10 + j, 1500 - j -- ties: the value twice, the first row wins
        c[{ top, j }] = 7; c[{ top + 300, j }] = 7
        c[{ bot, j }] = -7; c[{ bot + 200, j }] = -7
        want_max[j], want_min[j] = top, bot
        if float and j % 3 == 0 then -- NaN wins from its first row, both ways
          c[{ 900 + j, j }] = 0 / 0; c[{ 1900, j }] = 0 / 0
          want_max[j], want_min[j] = 900 + j, 900 + j
        end
      end
      if float then -- -0 and 0 tie: the first row
        for i = 1, rows do c[{ i, 2 }] = i % 2 == 0 and 0.0 or -0.0 end
        want_max[2], want_min[2] = 1, 1
      end
      assert.are.same(want_max, c:argmax(1):to_table(), ct .. " argmax")
      assert.are.same(want_min, c:argmin(1):to_table(), ct .. " argmin")
      local mx, mn = c:max(1):to_table(), c:min(1):to_table()
      for j = 1, cols do
        if float and j % 3 == 0 then
          assert.is_true(mx[j] ~= mx[j] and mn[j] ~= mn[j], ct .. " NaN column " .. j)
        elseif j ~= 2 or not float then
          assert.are.equal(7, mx[j], ct .. " max " .. j)
          assert.are.equal(-7, mn[j], ct .. " min " .. j)
        end
      end
    end
  end)

  -- Whole-row softmax runs in spans of rows (one exp pass per span: the
  -- host's SOFTMAX_SPAN, the CPU model's GM_AX_SOFTMAX_SPAN above 8192
  -- elements); a row with a NaN or an infinity takes the careful path
  -- between two spans.  Rows at the span edges (102 rows of ten on the
  -- CPU model), special rows among them, and in place; every row as a
  -- one-row softmax computes it, to the bit.
  it("softmax of many short rows: spans, special rows between them, in place", function()
    local nan, inf = 0 / 0, math.huge
    local rows, len = 1200, 10
    local special = { [1] = nan, [102] = inf, [103] = nan, [205] = inf, [206] = -inf, [300] = nan, [410] = inf,
      [1200] = -inf }
    for _, ct in ipairs(CTYPES) do
      local t = {}
      for r = 1, rows do
        for k = 1, len do t[(r - 1) * len + k] = ((r * 7 + k * 13) % 17 - 8) / 4 end
        if special[r] then t[(r - 1) * len + 3] = special[r] end
      end
      local m = gm.mat({ rows, len }, { ctype = ct, initial_contents = t })
      local want = ref_softmax(t, { rows, len }, 2)
      for _, inplace in ipairs({ false, true }) do
        local src = inplace and m:copy() or m
        local got = (inplace and gm.softmax(src, 2, { out = src }) or gm.softmax(src, 2)):to_table()
        for r = 1, rows do
          local one = gm.softmax(gm.mat({ 1, len }, { ctype = ct, initial_contents = { { table.unpack(t, (r - 1) * len + 1, r * len) } } }), 2):to_table()[1]
          for k = 1, len do
            local g, i = got[r][k], (r - 1) * len + k
            local where = ct .. (inplace and " in place" or "") .. " row " .. r .. " col " .. k
            assert.is_true(g == one[k] or (g ~= g and one[k] ~= one[k]), where .. ": as one row")
            if not special[r] then
              assert.is_true(close(want[i], g, ct), where .. ": " .. tostring(g) .. " vs " .. tostring(want[i]))
            end
          end
        end
      end
    end
  end)

  it("softmax and logsumexp over axes longer than one host segment", function()
    local n, h = LONG, 1e-5
    local x = gm.range(1, n, 1):reshape({ 1, n }) * h -- x_k = k h
    -- sum of exp(k h), k = 1..n: a geometric series
    local lse = h + math.log((math.exp(n * h) - 1) / (math.exp(h) - 1))
    assert.is_true(close(lse, gm.logsumexp(x, 2)[1], "double"))
    local s = gm.softmax(x, 2)
    assert.is_true(close(1, s:sum(), "double"))
    assert.is_true(close(math.exp(h - lse), s[1], "double"))
    assert.is_true(close(math.exp(n * h - lse), s[n], "double"))
    local c = gm.full({ 26300, 40 }, 2.5)
    local sc = gm.softmax(c, 1)
    assert.is_true(close(1 / 26300, sc:min(), "double") and close(1 / 26300, sc:max(), "double"))
  end)

  it("module functions are the methods", function()
    local m, t = make("double", { 3, 4 })
    assert_values(ref_reduce("sum", t, { 3, 4 }, 2), gm.sum(m, 2), "double", "gm.sum")
    assert_values(ref_reduce("argmax", t, { 3, 4 }, 1), gm.argmax(m, 1), "double", "gm.argmax")
    assert_values(ref_reduce("std", t, { 3, 4 }, 1, 1), gm.std(m, 1, { unbiased = true }), "double", "gm.std")
    assert.are.equal(m:max(), gm.max(m))
    assert_values(ref_reduce("logsumexp", t, { 3, 4 }, 2), m:logsumexp(2), "double", "m:logsumexp")
  end)

  it("out receives the result and is returned", function()
    for _, ct in ipairs(CTYPES) do
      local m, t = make(ct, { 3, 4 })
      local out = gm.mat({ 3 }, { ctype = ct, initial_element = 99 })
      assert.are.equal(out, m:sum(2, { out = out }))
      assert_values(ref_reduce("sum", t, { 3, 4 }, 2), out, ct, "sum into out")
      local keep = gm.mat({ 1, 4 }, { ctype = ct })
      assert.are.equal(keep, m:min(1, { out = keep, keepdims = true }))
      assert_values(ref_reduce("min", t, { 3, 4 }, 1), keep, ct, "min into out")
      local idx = gm.mat({ 3 }, { ctype = "int64" })
      assert.are.equal(idx, gm.argmax(m, -1, { out = idx }))
      assert.has_error(function() gm.argmin(m, -1, { out = gm.mat({ 3 }) }) end,
        "bad argument #3 to 'argmin' (out has ctype double, the result is int64)")
      assert_values(ref_reduce("argmax", t, { 3, 4 }, 2), idx, "double", "argmax into out")
    end
  end)

  it("argmax and argmin give the first of ties", function()
    for _, ct in ipairs(CTYPES) do
      local m = gm.mat({ 2, 5 }, { ctype = ct, initial_contents = { { 1, 3, 3, 0, 3 }, { 2, 2, 2, 2, 2 } } })
      assert.are.same({ 2, 1 }, m:argmax(2):to_table())
      assert.are.same({ 4, 1 }, m:argmin(2):to_table())
      assert.are.same({ 2, 1, 1, 2, 1 }, m:argmax(1):to_table())
      assert.are.same({ 1, 2, 2, 1, 2 }, m:argmin(1):to_table())
      assert.are.equal(2, m:argmax())
      assert.are.equal(4, m:argmin())
    end
  end)

  -- Rows shorter than the host's 16 lanes take a scalar loop in the
  -- element type, longer ones the lanes: both against a plain-Lua fold
  -- (the first NaN wins, then strictly better, so ties and -0 against 0
  -- keep the first), for every length from 1 to 40.
  it("extremes of short and long rows: NaN, ties and signed zeros at every length", function()
    local nan = 0 / 0
    local pool = { 1, 2, 2, -1, 0.0, -0.0, 3, -3, nan }
    local function ref(row, want_max)
      local b, bi = row[1], 1
      if b == b then
        for k = 2, #row do
          local v = row[k]
          if v ~= v then b, bi = v, k; break end
          if (want_max and v > b) or (not want_max and v < b) then b, bi = v, k end
        end
      end
      return b, bi
    end
    local seed = 7
    local function pick()
      seed = (seed * 1103515245 + 12345) % 2147483648
      return pool[seed % #pool + 1]
    end
    for _, ct in ipairs({ "float", "double" }) do
      for len = 1, 40 do
        local rows = {}
        for r = 1, 6 do
          rows[r] = {}
          for k = 1, len do rows[r][k] = (r <= 3 and k % 5 ~= 0) and pool[(r + k) % 4 + 1] or pick() end
        end
        local m = gm.mat({ 6, len }, { ctype = ct, initial_contents = rows })
        local mx, mn, amx, amn = m:max(2):to_table(), m:min(2):to_table(), m:argmax(2):to_table(), m:argmin(2):to_table()
        for r = 1, 6 do
          local bx, ix = ref(rows[r], true)
          local bn, iN = ref(rows[r], false)
          local where = ct .. " len " .. len .. " row " .. r
          assert.are.equal(ix, amx[r], where)
          assert.are.equal(iN, amn[r], where)
          if bx ~= bx then assert.is_true(mx[r] ~= mx[r], where) else
            assert.are.equal(bx, mx[r], where)
            assert.are.equal(1 / bx, 1 / mx[r], where) -- the sign of a zero
          end
          if bn ~= bn then assert.is_true(mn[r] ~= mn[r], where) else
            assert.are.equal(bn, mn[r], where)
            assert.are.equal(1 / bn, 1 / mn[r], where)
          end
        end
      end
    end
  end)

  it("a NaN propagates: max and min give NaN, argmax and argmin the first NaN", function()
    local nan = 0 / 0
    for _, ct in ipairs(CTYPES) do
      local m = gm.mat({ 3, 4 }, { ctype = ct, initial_contents = {
        { 1, nan, 5, nan }, { 2, 3, 4, 1 }, { nan, 9, 9, -1 } } })
      local mx, mn = m:max(2):to_table(), m:min(2):to_table()
      assert.is_true(mx[1] ~= mx[1] and mx[3] ~= mx[3])
      assert.are.equal(4, mx[2])
      assert.is_true(mn[1] ~= mn[1] and mn[3] ~= mn[3])
      assert.are.equal(1, mn[2])
      assert.are.same({ 2, 3, 1 }, m:argmax(2):to_table())
      assert.are.same({ 2, 4, 1 }, m:argmin(2):to_table())
      assert.are.same({ 3, 1, 3, 1 }, m:argmax(1):to_table())
      local cmax, cmin = m:max(1):to_table(), m:min(1):to_table()
      for _, j in ipairs { 1, 2, 4 } do assert.is_true(cmax[j] ~= cmax[j] and cmin[j] ~= cmin[j]) end
      assert.are.same({ 9, 4 }, { cmax[3], cmin[3] })
      local s = m:sum(2):to_table()
      assert.is_true(s[1] ~= s[1])
      assert.are.equal(10, s[2])
      local l = gm.logsumexp(m, 2):to_table()
      assert.is_true(l[1] ~= l[1] and l[3] ~= l[3])
      assert.are.equal(2, m:argmax())
      assert.are.equal(2, m:argmin())
      assert.is_true(m:var() ~= m:var())
    end
  end)

  it("rows of every length pick NaN first, then the first of ties (+0 and -0 too), as a plain loop does", function()
    -- the row loops find the value in vector lanes, then its first index:
    -- lengths around the lanes' widths, values drawn from few candidates
    local pool = { 0.0, -0.0, 1.0, -1.0, 2.5, 1 / 0, -1 / 0, 0 / 0 }
    local seed = 7
    local function rnd(k) seed = (seed * 1103515245 + 12345) % 2147483648; return seed % k + 1 end
    for trial = 1, 120 do
      local rows, n = rnd(3), ({ 1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 129, 300 })[rnd(14)]
      local t = {}
      for r = 1, rows do
        t[r] = {}
        for c = 1, n do t[r][c] = rnd(2) == 1 and pool[rnd(trial % 3 == 0 and 8 or 7)] or rnd(7) - 4 end
      end
      for _, ct in ipairs(CTYPES) do
        local m = gm.mat({ rows, n }, { ctype = ct, initial_contents = t })
        for _, op in ipairs({ "max", "min", "argmax", "argmin" }) do
          local arg = op:sub(1, 3) == "arg"
          local got = (arg and gm[op](m, 2) or gm[op](m, { axis = 2 })):to_table()
          for r = 1, rows do
            local want, g, what = refs[op](t[r]), got[r], string.format("%s %s row %d of %d", ct, op, r, n)
            if arg then
              assert.are.equal(want, g, what)
            else -- the sign too: the first of +0 and -0
              assert.is_true((g ~= g and want ~= want) or (g == want and 1 / g == 1 / want), what)
            end
          end
        end
      end
    end
  end)

  it("empty axes: sum 0, prod 1, mean and var NaN, logsumexp -inf", function()
    for _, ct in ipairs(CTYPES) do
      local m = gm.mat({ 0, 3 }, { ctype = ct })
      assert.are.same({ 0, 0, 0 }, m:sum(1):to_table())
      assert.are.same({ 1, 1, 1 }, m:prod(1):to_table())
      for _, op in ipairs { "mean", "var", "std" } do
        local r = m[op](m, 1):to_table()
        for i = 1, 3 do assert.is_true(r[i] ~= r[i], op) end
      end
      assert.are.same({ -math.huge, -math.huge, -math.huge }, gm.logsumexp(m, 1):to_table())
      assert.are.same({ 0 }, m:sum(2):dims())
      assert.are.same({ 0 }, m:argmax(2):dims()) -- no empty column: nothing to refuse
      assert.are.equal(1, m:prod())
      assert.is_true(m:var() ~= m:var())
    end
  end)

  it("max, min, argmax and argmin of an empty axis are errors naming the function", function()
    local m = gm.mat({ 0, 3 })
    for _, op in ipairs { "max", "min", "argmax", "argmin" } do
      assert.has_error(function() m[op](m, 1) end, ("bad argument #2 to '%s' (axis 1 is empty)"):format(op))
      assert.has_error(function() m[op](m) end, ("bad argument #1 to '%s' (the mat is empty)"):format(op))
    end
  end)

  it("whole-mat forms return Lua numbers", function()
    for _, ct in ipairs(CTYPES) do
      local m = gm.mat({ 2, 3 }, { ctype = ct, initial_contents = { { 1, 2, 3 }, { 4, 5, 6 } } })
      assert.are.equal(720, m:prod())
      assert.is_true(close(35 / 12, m:var(), ct))
      assert.is_true(close(math.sqrt(3.5), m:std(nil, { unbiased = true }), ct))
      assert.is_true(close(3.5, m:var(nil, { unbiased = true }), ct))
      assert.are.equal(6, m:argmax())
      assert.are.equal("integer", math.type(m:argmax()))
      assert.are.equal(1, m:argmin())
      assert.are.equal(21, m:sum())
      assert.are.equal(3.5, m:mean())
    end
  end)
end)

describe("whole-mat max and min of long mats (the host's vector lanes)", function()
  -- src/host/reduce.c: 64 bytes of lanes in GCC's vector types, a NaN
  -- anywhere is the result, a zero result is computed again in order so
  -- that the first of -0 and +0 wins as in the sequential loop
  it("NaN, infinities, ties of signed zeros and the extreme at every position", function()
    for _, ct in ipairs(CTYPES) do
      for _, n in ipairs { 64, 65, 257, 1000, 70001 } do
        local vals = {}
        for i = 1, n do vals[i] = ((i * 37) % 101) / 7 - 5 end
        local function mat(t) -- on the host (device kernels pick among signed zeros their own way)
          local m = gm.array_to_mat(t, { ctype = ct })
          m:set_cuda_enabled(false)
          return m
        end
        local function ref(t, is_min)
          local b, nan = t[1], false
          for _, v in ipairs(t) do
            if v ~= v then nan = true elseif (is_min and v < b) or (not is_min and v > b) then b = v end
          end
          return nan and 0 / 0 or b
        end
        for _, at in ipairs { 1, 2, 17, 33, n // 2, n - 1, n } do
          local t = { table.unpack(vals) }
          t[at] = 1000
          assert.equal(1000, mat(t):max(), ct .. " max at " .. at .. " of " .. n)
          t[at] = -1000
          assert.equal(-1000, mat(t):min(), ct .. " min at " .. at .. " of " .. n)
          t[at] = 0 / 0
          local mx, mn = mat(t):max(), mat(t):min()
          assert.is_true(mx ~= mx and mn ~= mn, ct .. " NaN at " .. at .. " of " .. n)
          t[at] = math.huge
          assert.equal(math.huge, mat(t):max())
          t[at] = -math.huge
          assert.equal(-math.huge, mat(t):min())
        end
        -- all non-positive with zeros of both signs: the first zero wins
        for _, first in ipairs { -0.0, 0.0 } do
          local t = {}
          for i = 1, n do t[i] = -((i * 13) % 7) - 1.0 end
          -- the first zero in lane 3, the other later but in lane 1 (the
          -- lanes alone would combine lane 1's first)
          t[4] = first
          t[50] = 1 / first > 0 and -0.0 or 0.0
          local r = mat(t):max()
          assert.equal(0, r)
          assert.equal(1 / ref(t, false), 1 / r, ct .. " signed zero of max, n " .. n)
          for i = 1, n do t[i] = -t[i] end
          t[4], t[50] = first, 1 / first > 0 and -0.0 or 0.0
          r = mat(t):min()
          assert.equal(1 / ref(t, true), 1 / r, ct .. " signed zero of min, n " .. n)
        end
      end
    end
  end)
end)

describe("reductions of strided views", function()
  local function same(a, b, ct, what)
    assert.are.same(a:dims(), b:dims(), what)
    assert_values(flatten(a:to_table()), b, ct, what)
  end

  it("reduce a transposed or narrowed view as its contiguous copy", function()
    for _, ct in ipairs(CTYPES) do
      local m = make(ct, { 4, 6 })
      for _, v in ipairs { m:t(), m:narrow(2, 2, 3), m:select(1, 2) } do
        local c = v:contiguous()
        for _, op in ipairs(OPS) do
          for axis = 1, #v:dims() do
            local arg = op == "argmax" or op == "argmin"
            same(call(op, c, axis), call(op, v, axis), arg and "double" or ct, op .. " of a view")
          end
          if op ~= "logsumexp" then
            local a, b = c[op](c), v[op](v)
            assert.is_true(close(a, b, ct), op .. " of a whole view")
          end
        end
        same(gm.softmax(c, 1), gm.softmax(v, 1), ct, "softmax of a view")
      end
    end
  end)

  -- The values of a view of the row-major list t (dims) that keeps the
  -- 1-based indices idx[a] along each axis a, and the view's dims.
  local function pick(t, dims, idx)
    local out, vd = {}, {}
    for a = 1, #dims do vd[a] = #idx[a] end
    local function walk(a, off)
      if a > #dims then out[#out + 1] = t[off + 1]; return end
      for _, i in ipairs(idx[a]) do walk(a + 1, off * dims[a] + i - 1) end
    end
    walk(1, 0)
    return out, vd
  end
  local function span(first, last, step)
    local r = {}
    for i = first, last, step or 1 do r[#r + 1] = i end
    return r
  end

  it("blocks, steps, columns and expanded views walked in place match the reference", function()
    for _, ct in ipairs(CTYPES) do
      local m2, t2 = make(ct, { 6, 8 })
      local m3, t3 = make(ct, { 5, 7, 6 })
      local cases = { -- a view, and its indices in the base
        { m2[{ {}, { 3, 6 } }], t2, { 6, 8 }, { span(1, 6), span(3, 6) } },          -- a column block
        { m2[{ { 1, -1, 2 } }], t2, { 6, 8 }, { span(1, 6, 2), span(1, 8) } },       -- every other row
        { m2[{ {}, { 1, -1, 2 } }], t2, { 6, 8 }, { span(1, 6), span(1, 8, 2) } },   -- every other column
        { m2[{ { 2, 5 }, 3 }], t2, { 6, 8 }, { span(2, 5), { 3 } } },                -- a strided column
        { m3[{ { 2, 4 }, {}, { 2, 5 } }], t3, { 5, 7, 6 }, { span(2, 4), span(1, 7), span(2, 5) } },
        { m3[{ {}, { 2, 6, 2 } }], t3, { 5, 7, 6 }, { span(1, 5), span(2, 6, 2), span(1, 6) } },
      }
      for c, case in ipairs(cases) do
        local v, vt, vdims = case[1], pick(case[2], case[3], case[4])
        if #v:dims() == 1 then vdims = { #vt } end -- the strided column is 1-d
        assert.are.same(vdims, v:dims(), "case " .. c)
        for _, op in ipairs(OPS) do
          for axis = 1, #vdims do
            local arg = op == "argmax" or op == "argmin"
            local what = ("%s(%d) of view %d, %s"):format(op, axis, c, ct)
            assert_values(ref_reduce(op, vt, vdims, axis, 0), call(op, v, axis), arg and "double" or ct, what)
          end
        end
        assert_values(ref_reduce("var", vt, vdims, 1, 1), v:var(1, { unbiased = true }), ct, "unbiased var")
        for _, op in ipairs { "sum", "max", "min", "mean" } do -- whole-view forms (by rows, in place)
          assert.is_true(close(ref_column(op, vt, 0), v[op](v), ct), ("%s of view %d, %s"):format(op, c, ct))
        end
      end
      -- an expanded (stride 0) view: a row repeated 5 times
      local row, rt = make(ct, { 1, 7 })
      local e = row:expand(5, 7)
      local et = {}
      for i = 1, 5 do for j = 1, 7 do et[(i - 1) * 7 + j] = rt[j] end end
      for _, op in ipairs(OPS) do
        for axis = 1, 2 do
          local arg = op == "argmax" or op == "argmin"
          assert_values(ref_reduce(op, et, { 5, 7 }, axis, 0), call(op, e, axis), arg and "double" or ct,
            op .. " of an expanded view")
        end
      end
    end
  end)

  it("a big column block (several segments, several cores) as its contiguous copy", function()
    for _, ct in ipairs(CTYPES) do
      local m = make(ct, { 1100, 3000 })
      local v = m[{ {}, { 501, 2548 } }] -- 1100 x 2048, rows 3000 apart
      local c = v:contiguous()
      for _, op in ipairs { "sum", "max", "argmin", "var" } do
        for axis = 1, 2 do
          local arg = op == "argmax" or op == "argmin"
          assert_values(flatten(call(op, c, axis):to_table()), call(op, v, axis), arg and "double" or ct,
            op .. "(" .. axis .. ") of a 1100x2048 block")
        end
      end
    end
  end)

  it("write into a strided out, and softmax in place on a view", function()
    for _, ct in ipairs(CTYPES) do
      local m = make(ct, { 4, 6 })
      local big = gm.zeros(6, 2, { ctype = ct })
      local col = big:select(2, 1) -- 6 elements, stride 2
      assert.are.equal(col, m:sum(1, { out = col }))
      same(m:sum(1), col, ct, "sum into a column view")
      assert.are.same({ 0, 0, 0, 0, 0, 0 }, big:select(2, 2):to_table()) -- the other column untouched
      local s = gm.zeros(6, 4, { ctype = ct }):t()
      gm.softmax(m, 2, { out = s })
      same(gm.softmax(m, 2), s, ct, "softmax into a transposed out")
      local w = m:copy():t()
      local expected = gm.softmax(w:contiguous(), 1)
      assert.are.equal(w, gm.softmax(w, 1, { out = w }))
      same(expected, w, ct, "softmax in place on a view")
    end
  end)
end)

describe("softmax and logsumexp", function()
  it("softmax along an axis matches the reference and sums to 1", function()
    for _, ct in ipairs(CTYPES) do
      for _, case in ipairs { { { 4, 6 }, 2 }, { { 4, 6 }, 1 }, { { 3, 4, 5 }, 2 }, { { 3, 70 }, -1 } } do
        local dims, axis = case[1], case[2]
        local m, t = make(ct, dims, 2)
        local s = gm.softmax(m, axis)
        local pos = axis < 0 and axis + #dims + 1 or axis
        assert.are.same(dims, s:dims())
        assert_values(ref_softmax(t, dims, pos), s, ct, "softmax")
        assert_values(ref_reduce("sum", ref_softmax(t, dims, pos), dims, pos), s:sum(pos), ct, "softmax sums")
        local sums = flatten(s:sum(pos):to_table())
        for _, v in ipairs(sums) do assert.is_true(close(1, v, ct)) end
      end
    end
  end)

  it("is stable for huge values", function()
    for _, ct in ipairs(CTYPES) do
      local m = gm.mat({ 2, 2 }, { ctype = ct, initial_contents = { { 1000, 1001 }, { -1000, -1001 } } })
      local s = gm.softmax(m, 2):to_table()
      local a = 1 / (1 + math.exp(1))
      assert.is_true(close(a, s[1][1], ct) and close(1 - a, s[1][2], ct))
      assert.is_true(close(1 - a, s[2][1], ct) and close(a, s[2][2], ct))
      local l = gm.logsumexp(m, 2):to_table()
      assert.is_true(close(1001 + math.log(1 + math.exp(-1)), l[1], ct))
      assert.is_true(close(-1000 + math.log(1 + math.exp(-1)), l[2], ct))
      local inf = gm.mat({ 1, 3 }, { ctype = ct, initial_contents = { { -math.huge, 0, -math.huge } } })
      assert.are.same({ { 0, 1, 0 } }, gm.softmax(inf, 2):to_table())
    end
  end)

  it("softmax writes into out, which may be the input itself", function()
    for _, ct in ipairs(CTYPES) do
      local m, t = make(ct, { 3, 5 }, 1, true)
      local expected = ref_softmax(t, { 3, 5 }, 2)
      local out = gm.mat({ 3, 5 }, { ctype = ct })
      assert.are.equal(out, gm.softmax(m, 2, { out = out }))
      assert_values(expected, out, ct, "softmax into out")
      assert.are.equal(m, m:softmax(-1, { out = m }))
      assert_values(expected, m, ct, "softmax in place")
      local lo = gm.mat({ 3, 1 }, { ctype = ct })
      assert.are.equal(lo, gm.logsumexp(out, 2, { out = lo, keepdims = true }))
    end
  end)
end)

describe("reduction errors", function()
  local m = gm.mat({ 2, 3 }, { initial_element = 1 })
  it("axis out of range or not an integer", function()
    assert.has_error(function() m:sum(3) end, "bad argument #2 to 'sum' (axis 3 is out of range 1..2 (or -2..-1))")
    assert.has_error(function() m:mean(-3) end, "bad argument #2 to 'mean' (axis -3 is out of range 1..2 (or -2..-1))")
    assert.has_error(function() m:argmax(0) end, "bad argument #2 to 'argmax' (axis 0 is out of range 1..2 (or -2..-1))")
    assert.has_error(function() m:max(1.5) end, "bad argument #2 to 'max' (axis must be an integer, got number)")
    assert.has_error(function() gm.softmax(m) end, "bad argument #2 to 'softmax' (axis must be an integer, got nil)")
    assert.has_error(function() gm.logsumexp(m) end, "bad argument #2 to 'logsumexp' (axis must be an integer, got nil)")
  end)

  it("out with wrong dims or ctype, or sharing the input's storage", function()
    assert.has_error(function() m:sum(1, { out = gm.mat({ 2 }) }) end,
      "bad argument #3 to 'sum' (out has dims 2, the result has 3)")
    assert.has_error(function() m:sum(1, { out = gm.mat({ 3 }), keepdims = true }) end,
      "bad argument #3 to 'sum' (out has dims 3, the result has 1x3)")
    assert.has_error(function() m:prod(2, { out = gm.mat({ 2 }, { ctype = "float" }) }) end,
      "bad argument #3 to 'prod' (out has ctype float, the result is double)")
    local f = gm.mat({ 2, 3 }, { ctype = "float" })
    assert.has_error(function() f:argmin(2, { out = gm.mat({ 2 }, { ctype = "float" }) }) end,
      "bad argument #3 to 'argmin' (out has ctype float, the result is int64)")
    assert.has_error(function() m:sum(2, { out = m:reshape({ 2 }) }) end, "bad argument #3 to 'sum' (out shares storage with the input)")
    assert.has_error(function() m:sum(1, { out = 5 }) end, "bad argument #3 to 'sum' (out must be a gpumat.mat, got number)")
  end)

  it("options and extra arguments", function()
    assert.has_error(function() m:sum(1, { foo = 1 }) end, "bad argument #3 to 'sum' (unknown option 'foo')")
    assert.has_error(function() m:sum(1, { unbiased = true }) end, "bad argument #3 to 'sum' (unknown option 'unbiased')")
    assert.has_error(function() gm.softmax(m, 1, { keepdims = true }) end,
      "bad argument #3 to 'softmax' (unknown option 'keepdims')")
    assert.has_error(function() m:sum(nil, { keepdims = true }) end,
      "bad argument #3 to 'sum' (keepdims and out need an axis (argument #2))")
    assert.has_error(function() m:sum(1, nil, 2) end, "bad argument #4 to 'sum' (no value expected)")
    assert.has_error(function() gm.sum("x", 1) end)
    assert.are.same({ { 1, 1, 1 }, { 1, 1, 1 } }, m:to_table()) -- untouched
  end)
end)

describe("reductions of permuted views", function()
  local EMU = { backend = "emulated" }
  local strided = require "strided_mats"
  local staged, flat = strided.staged_copies, strided.flat
  local function same(a, b, what)
    local x, y = flat(a:to_table()), flat(b:to_table())
    assert.are.equal(#x, #y, what)
    for i = 1, #x do
      if math.abs(x[i] - y[i]) > 1e-12 * math.max(1, math.abs(x[i])) then
        error(("%s: element %d: %s vs %s"):format(what, i, x[i], y[i]), 0)
      end
    end
  end

  for _, cfg in ipairs { { enabled = false }, EMU } do
    it("every axis of every permutation equals the contiguous copy's result, read in place " .. (cfg.backend or "host"),
      function()
        gm.with_cuda(cfg, function()
          local a = gm.range(1, 60):view(3, 4, 5):cos()
          for _, perm in ipairs { { 2, 1, 3 }, { 3, 2, 1 }, { 1, 3, 2 }, { 2, 3, 1 }, { 3, 1, 2 } } do
            local v, c = a:permute(table.unpack(perm)), a:permute(table.unpack(perm)):contiguous()
            for axis = 1, 3 do
              for _, f in ipairs { "sum", "mean", "prod", "max", "min", "var", "argmax", "argmin" } do
                same(v[f](v, axis), c[f](c, axis), ("%s axis %d of permute(%s)"):format(f, axis, table.concat(perm, ",")))
              end
              same(gm.logsumexp(v, axis), gm.logsumexp(c, axis), "logsumexp")
            end
            for _, f in ipairs { "sum", "mean", "max", "min", "var", "argmax", "argmin" } do
              assert.is_true(math.abs(v[f](v) - c[f](c)) <= 1e-12 * math.max(1, math.abs(c[f](c))), f)
            end
          end
          -- a transposed 2-d view: no staging copy on the device, for the axis and the whole-mat forms
          local m = gm.range(1, 12):view(3, 4)
          local before = staged()
          assert.are.same({ 10, 26, 42 }, m:t():sum(1):to_table())
          assert.are.same({ 15, 18, 21, 24 }, m:t():sum(2):to_table())
          assert.are.equal(78, m:t():sum())
          if cfg.backend then assert.are.equal(before, staged()) end
          assert.are.equal(12, m:t():argmax()) -- row-major position in the view
        end)
      end)
  end
end)
