-- The index-carrying sort engine (kernels/scan.h gm_lines_line_*, every
-- ctype): gm.sort's indices, argsort, topk, kthvalue, mode, cummax,
-- cummin, randperm, searchsorted, isin, the unique_* set functions and
-- nanquantile; against plain-Lua references over the ctype list and
-- against NumPy (spec/numpy_ref.lua, one process), on the host and on the
-- emulated device (the kernel sources CUDA compiles).
local gm = require "gpumat"
local core = require "gpumat.core"
local R = require "numpy_ref"

local EMU = { backend = "emulated" }
local nan = 0 / 0
local CTYPES = { "double", "float", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64" }

-- a number key of a Lua element (booleans as 0/1) and the library's order
local function key(v) if type(v) == "boolean" then return v and 1 or 0 end return v end
local function before(a, b, desc)
  a, b = key(a), key(b)
  if desc then return a > b or (a ~= a and b == b) end
  return a < b or (b ~= b and a == a)
end
-- the stable 1-based argsort of a Lua list (insertion sort)
local function ref_argsort(t, desc)
  local r = {}
  for i = 1, #t do
    local j = i
    while j > 1 and before(t[i], t[r[j - 1]], desc) do
      r[j] = r[j - 1]
      j = j - 1
    end
    r[j] = i
  end
  return r
end

-- element values of ctype ct: few distinct ones (ties), NaN and -0.0 in floats
local function elems(ct, n, seed)
  local t, s = {}, seed
  for i = 1, n do
    s = (s * 1103515245 + 12345) % 2147483648
    local v = s % 5
    if ct == "bool" then t[i] = v % 2 == 1
    elseif ct == "double" or ct == "float" then
      t[i] = ({ 1.5, -2, 0.0, -0.0, nan })[v + 1]
    elseif ct:match("^int") then t[i] = v - 2
    else t[i] = v * 3 end
  end
  return t
end

-- elems with every other element spread over the type's range (every
-- key byte of the radix sort), floats exact in float32 (inf too)
local LIM = { int8 = 2 ^ 7, int16 = 2 ^ 15, int32 = 2 ^ 31, int64 = 2 ^ 53, uint8 = 2 ^ 8, uint16 = 2 ^ 16,
  uint32 = 2 ^ 32, uint64 = 2 ^ 53 }
local function spread(ct, n, seed)
  local t, s = elems(ct, n, seed), seed
  for i = 1, n, 2 do
    s = (s * 1103515245 + 12345) % 2147483648
    if ct == "double" or ct == "float" then
      t[i] = s % 13 == 0 and (s % 2 == 0 and math.huge or -math.huge) or (s % 2 * 2 - 1) * (s % 1000) * 2.0 ^ (s % 41 - 20)
    elseif ct ~= "bool" then
      local v = s / 2147483648 * LIM[ct]
      t[i] = math.tointeger(math.floor(ct:match("^int") and 2 * v - LIM[ct] or v))
    end
  end
  return t
end

local function mk(ct, dims, t)
  local m = gm.zeros(dims, { ctype = ct })
  for i, v in ipairs(t) do m[i] = v end
  return m
end

local function flat(m)
  local r = {}
  for k = 1, m:size() do r[k] = m[k] end
  return r
end

-- the lines of a 2-d list (row-major, dims r x c) along axis, as index lists
local function line_idx(r, c, axis)
  local out = {}
  if axis == 2 then
    for i = 1, r do
      out[i] = {}
      for j = 1, c do out[i][j] = (i - 1) * c + j end
    end
  else
    for j = 1, c do
      out[j] = {}
      for i = 1, r do out[j][i] = (i - 1) * c + j end
    end
  end
  return out
end

local function same(w, g, what)
  local ok = w == g or (w ~= w and g ~= g)
  if type(w) == "number" and w == 0 and g == 0 and math.type(w) == "float" then ok = 1 / w == 1 / g end
  if not ok then error(string.format("%s: got %s, want %s", what, tostring(g), tostring(w)), 2) end
end

-- gm.sort (values, indices) and gm.argsort of the r x c mat of list t of
-- ctype ct along both axes, both orders, against the stable Lua argsort
local function check_sorts(ct, t, r, c)
  local m = mk(ct, { r, c }, t)
  for axis = 1, 2 do
    for _, desc in ipairs({ false, true }) do
      local v, i = gm.sort(m, { axis = axis, descending = desc })
      local a = gm.argsort(m, { axis = axis, descending = desc })
      assert.are.equal(ct, v:ctype())
      assert.are.equal("int64", i:dtype())
      local vf, iff, af = flat(v), flat(i), flat(a)
      for _, line in ipairs(line_idx(r, c, axis)) do
        local lt = {}
        for k, p in ipairs(line) do lt[k] = t[p] end
        local want = ref_argsort(lt, desc)
        for k, p in ipairs(line) do
          local what = string.format("%s axis %d%s pos %d", ct, axis, desc and " desc" or "", k)
          same(want[k], iff[p], what .. " index")
          same(want[k], af[p], what .. " argsort")
          same(lt[want[k]], vf[p], what .. " value")
        end
      end
    end
  end
end

-- mode, topk and kthvalue of the {2, 20} and {8, 5} mats of t (lines of
-- 20, 5), unique_all of the 1-d t, median of the float ones: against Lua
-- references
local function check_sets(ct, t)
  for _, rc in ipairs({ { 2, 20 }, { 8, 5 } }) do
    local m = mk(ct, rc, t)
    local mv, mi = gm.mode(m)
    local md = (ct == "double" or ct == "float") and gm.median(m, { axis = 2 })
    local tv, ti = gm.topk(m, 3)
    local sv, si = gm.topk(m, 2, { largest = false })
    local kv, ki = gm.kthvalue(m, 4)
    for row = 1, rc[1] do
      local lt = {}
      for k = 1, rc[2] do lt[k] = t[(row - 1) * rc[2] + k] end
      local a, d = ref_argsort(lt, false), ref_argsort(lt, true)
      for k = 1, 3 do
        same(d[k], ti[{ row, k }], ct .. " topk index")
        same(lt[d[k]], tv[{ row, k }], ct .. " topk value")
        if k <= 2 then same(a[k], si[{ row, k }], ct .. " topk smallest index") end
      end
      same(lt[a[1]], sv[{ row, 1 }], ct .. " topk smallest value")
      same(a[4], ki[row], ct .. " kthvalue index")
      same(lt[a[4]], kv[row], ct .. " kthvalue value")
      local best, bn, lo = nil, 0, 1 -- the first longest run of equal sorted values
      for k = 2, #a + 1 do
        local x, y = lt[a[k - 1]], lt[a[k]]
        if k > #a or not (x == y or (x ~= x and y ~= y)) then
          if k - lo > bn then best, bn = a[lo], k - lo end
          lo = k
        end
      end
      same(best, mi[row], ct .. " mode index")
      same(lt[best], mv[row], ct .. " mode value")
      if md then
        local n = #a
        local w = (lt[a[n]] ~= lt[a[n]]) and lt[a[n]] or (lt[a[(n + 1) // 2]] + lt[a[n // 2 + 1]]) * 0.5
        local g = md[row]
        assert(g == w or (g ~= g and w ~= w) or math.abs(g - w) <= 1e-6 * math.abs(w), ct .. " median")
      end
    end
  end
  local v, first, inv, cnt = gm.unique_all(mk(ct, { #t }, t))
  local a, u = ref_argsort(t, false), 0
  for k, p in ipairs(a) do
    if k == 1 or not (t[a[k - 1]] == t[p]) then
      u = u + 1
      same(t[p], v[u], ct .. " unique value")
      same(p, first[u], ct .. " unique first")
      if u > 1 then same(k - a.start, cnt[u - 1], ct .. " unique count") end
      a.start = k
    end
    same(u, inv[p], ct .. " unique inverse")
  end
  same(#a + 1 - a.start, cnt[u], ct .. " unique count")
  same(u, v:size(), ct .. " unique size")
end

local places = require("device_ops").places

for _, place in ipairs(places) do
  local where, run = place[1], place[2]
  describe("the index-carrying sort on " .. where, function()
    it("sort -> values, int64 indices; argsort; every ctype, both axes and orders, stable", function()
      run(function()
        for _, ct in ipairs(CTYPES) do check_sorts(ct, elems(ct, 18, #ct), 3, 6) end
      end)
    end)

    it("the radix sort and selection (core._sort_radix: from 4 elements, chunks of 8): every ctype", function()
      run(function()
        core._sort_radix(4, 8)
        local ok, err = pcall(function()
          for _, ct in ipairs(CTYPES) do
            local t = spread(ct, 40, #ct)
            -- {2, 20} and {20, 2}: two lines in chunks; {8, 5}: a line per caller
            for _, rc in ipairs({ { 2, 20 }, { 20, 2 }, { 8, 5 } }) do check_sorts(ct, t, rc[1], rc[2]) end
            -- a line of five repeated values: the host's (key, position) pairs (float, int32,
            -- uint32) take their first digit from the bits that differ (uint32 0..12: the low 4)
            check_sorts(ct, elems(ct, 40, 7), 1, 40)
            check_sets(ct, t)
          end
        end)
        core._sort_radix(0, 0)
        assert(ok, err)
      end)
    end)
    it("(key, position) pairs of float, int32, uint32 and the other types' radix: long and many lines, stable", function()
      -- two lines of 3000, contiguous or at stride 2: with chunks of 512 a
      -- split over chunks and a block per bucket, with chunks of 4096 a
      -- block per line of two counting threads; checked in O(n): a
      -- permutation, in order, equal keys by position
      local function k(v) return v == 0 and 0 or v end -- -0.0 and 0.0: one key
      local function check(ct, t, dims, axis, desc)
        local v, i = gm.sort(R.mk(ct, dims, t), { axis = axis, descending = desc })
        local vf, iff = R.flat(v), R.flat(i)
        for _, line in ipairs(line_idx(dims[1], dims[2], axis)) do
          local seen = {}
          for q, p in ipairs(line) do
            local at = iff[p]
            assert(not seen[at] and at >= 1 and at <= #line, "a permutation")
            seen[at] = true
            same(t[line[at]], vf[p], ct .. " value")
            if q > 1 then
              local a, b, pa = k(vf[line[q - 1]]), k(vf[p]), iff[line[q - 1]]
              local eq = a == b or (a ~= a and b ~= b)
              assert(eq and pa < at or not eq and before(a, b, desc),
                string.format("%s %s order at %d of %dx%d axis %d", ct, desc and "desc" or "asc", q, dims[1], dims[2], axis))
            end
          end
        end
      end
      run(function()
        local ok, err = pcall(function()
          for _, chunk in ipairs({ 512, 4096 }) do
            core._sort_radix(4, chunk)
            -- (double, int64, int16, uint8: the device's pass plan of a few long lines and its
            -- keys-and-positions sort of many lines, kernels/radix.cu)
            for _, ct in ipairs({ "float", "int32", "uint32", "double", "int64", "int16", "uint8" }) do
              local t = spread(ct, 6000, #ct + 3)
              for _, desc in ipairs({ false, true }) do
                check(ct, t, { 2, 3000 }, 2, desc)
                check(ct, t, { 3000, 2 }, 1, desc)
              end
            end
          end
        end)
        core._sort_radix(0, 0)
        assert(ok, err)
      end)
    end)

    it("topk, kthvalue, mode, cummax and cummin against Lua references", function()
      run(function()
        for _, ct in ipairs({ "double", "int16", "uint8" }) do
          local t = elems(ct, 12, 3)
          local m = mk(ct, { 2, 6 }, t)
          local tv, ti = gm.topk(m, 3)
          local kv, ki = gm.kthvalue(m, 2)
          local mv, mi = gm.mode(m)
          local xv, xi = gm.cummax(m, 2)
          local nv, ni = gm.cummin(m, { axis = 2 })
          assert.are.same({ 2, 3 }, tv:dims())
          assert.are.same({ 2 }, kv:dims())
          for row = 1, 2 do
            local lt = {}
            for k = 1, 6 do lt[k] = t[(row - 1) * 6 + k] end
            local d, a = ref_argsort(lt, true), ref_argsort(lt, false)
            for k = 1, 3 do
              same(d[k], ti[{ row, k }], ct .. " topk index")
              same(lt[d[k]], tv[{ row, k }], ct .. " topk value")
            end
            same(a[2], ki[row], ct .. " kthvalue index")
            same(lt[a[2]], kv[row], ct .. " kthvalue value")
            -- mode: the smallest most frequent value, its first position
            local best, bn = nil, 0
            for _, p in ipairs(a) do
              local n, first = 0, nil
              for k, v in ipairs(lt) do
                if v == lt[p] or (v ~= v and lt[p] ~= lt[p]) then
                  n = n + 1
                  first = first or k
                end
              end
              if n > bn then best, bn = first, n end
            end
            same(best, mi[row], ct .. " mode index")
            same(lt[best], mv[row], ct .. " mode value")
            -- Torch's cummax/cummin: NaN takes over, ties move to the later one
            local hi, hiI, lo, loI
            for k, v in ipairs(lt) do
              if k == 1 or v ~= v or (hi == hi and v >= hi) then hi, hiI = v, k end
              if k == 1 or v ~= v or (lo == lo and v <= lo) then lo, loI = v, k end
              same(hi, xv[{ row, k }], ct .. " cummax")
              same(hiI, xi[{ row, k }], ct .. " cummax index")
              same(lo, nv[{ row, k }], ct .. " cummin")
              same(loI, ni[{ row, k }], ct .. " cummin index")
            end
          end
        end
      end)
    end)

    it("randperm is an int64 permutation of 1..n; empty inputs give empty results", function()
      run(function()
        local p = gm.randperm(20)
        assert.are.equal("int64", p:dtype())
        local seen = {}
        for _, v in ipairs(flat(p)) do seen[v] = true end
        for k = 1, 20 do assert.is_true(seen[k]) end
        assert.are.equal(0, gm.randperm(0):size())
        local e = gm.zeros({ 2, 0 }, { ctype = "int32" })
        local v, i = gm.sort(e)
        assert.are.same({ 2, 0 }, i:dims())
        assert.are.same({ 2, 0 }, v:dims())
        local u, ui, inv, cnt = gm.unique_all(gm.zeros(0))
        assert.are.same({ 0, 0, 0, 0 }, { u:size(), ui:size(), inv:size(), cnt:size() })
        assert.are.same({ false, false }, gm.isin(gm.zeros(2), gm.zeros(0)):to_table())
        -- mixed types meet in result_type: 2.5 is not the int 2; a number gives a Lua integer
        local im = mk("int32", { 3 }, { 2, 3, 4 })
        assert.are.same({ false, true, false }, gm.isin(im, { 2.5, 3 }):to_table())
        assert.are.equal(2, gm.searchsorted(im, 2.5))
        assert.are.equal(3, gm.searchsorted(im, 3, { side = "right" }))
      end)
    end)
  end)
end

describe("the emulated device runs lines_kernel and search_kernel", function()
  it("once per call, per ctype", function()
    local function n(k) return (gm.emulated_kernel_launches()[k] or { launches = 0 }).launches end
    local b1, b2 = n("lines_kernel<int32_t>"), n("search_kernel<int32_t>")
    gm.with_cuda(EMU, function()
      local m = mk("int32", { 4 }, { 3, 1, 2, 1 })
      gm.argsort(m)
      gm.searchsorted(gm.sort(m), m)
    end)
    assert.are.equal(2, n("lines_kernel<int32_t>") - b1)
    assert.are.equal(1, n("search_kernel<int32_t>") - b2)
  end)
end)

describe("the emulated device runs the radix sort's kernels", function()
  it("pairs (4-byte types): a split and a block per bucket, or a block per line; others a plan and a pass per "
    .. "key byte, or a block per line",
    function()
    local function n(k) return (gm.emulated_kernel_launches()[k] or { launches = 0 }).launches end
    local names = { "pair_split_kernel<T>", "pair_buckets_kernel<T>", "pair_lines_kernel<T>", "radix_scatter_kernel<K>",
      "lines_kernel<int32_t>", "lines_kernel<int64_t>", "radix_plan_kernel", "key_lines_kernel<T>" }
    local before = {}
    for _, k in ipairs(names) do before[k] = n(k) end
    core._sort_radix(4, 8)
    local ok, err = pcall(gm.with_cuda, EMU, function()
      gm.argsort(mk("int32", { 20 }, spread("int32", 20, 5)))
      gm.argsort(mk("int32", { 8, 5 }, spread("int32", 40, 5)))
      gm.argsort(mk("int64", { 20 }, spread("int64", 20, 5)))
      gm.argsort(mk("int64", { 8, 5 }, spread("int64", 40, 5)))
    end)
    core._sort_radix(0, 0)
    assert(ok, err)
    local got = {}
    for _, k in ipairs(names) do got[#got + 1] = n(k) - before[k] end
    -- int64: a plan and 8 passes of a long line (those of one digit return at once); its many
    -- lines a block per line (keys and positions)
    assert.are.same({ 1, 1, 1, 8, 0, 0, 1, 1 }, got)
  end)
end)

describe("sorting and set errors", function()
  local m = gm.array_to_mat({ { 1, 2 }, { 3, 4 } })
  it("name the function and the argument", function()
    assert.has_error(function() gm.topk(m, 3) end, "bad argument #2 to 'topk' (k must be an integer in 0..2, got 3)")
    assert.has_error(function() gm.kthvalue(m, 0) end, "bad argument #2 to 'kthvalue' (k must be an integer in 1..2, got 0)")
    assert.has_error(function() gm.argsort(m, { axis = 3 }) end,
      "bad argument #2 to 'argsort' (axis 3 is out of range 1..2 (or -2..-1))")
    assert.has_error(function() gm.mode(gm.zeros({ 2, 0 })) end, "bad argument #1 to 'mode' (axis 2 is empty)")
    assert.has_error(function() gm.cummax(m) end, "bad argument #2 to 'cummax' (axis is required for a rank 2 mat)")
    assert.has_error(function() gm.searchsorted(m, m) end, "bad argument #1 to 'searchsorted' (x1 must be 1-d, got rank 2)")
    local s = gm.array_to_mat({ 1, 2 })
    assert.has_error(function() gm.searchsorted(s, m, { side = "up" }) end,
      "bad argument #3 to 'searchsorted' (side must be \"left\" or \"right\", got up)")
    assert.has_error(function() gm.searchsorted(s, m, { sorter = gm.array_to_mat({ 1, 3 }):as("int64") }) end,
      "bad argument #3 to 'searchsorted' (sorter holds a position outside 1..2)")
    assert.has_error(function() gm.randperm(-1) end, "bad argument #1 to 'randperm' (n must be a non-negative integer, got -1)")
    assert.has_error(function() gm.isin(m, 3) end, "bad argument #2 to 'isin' (gpumat.mat expected, got number)")
  end)
end)

describe("against NumPy", function()
  it("unique_all, searchsorted, isin and nanquantile agree", function()
    if not R.python then return pending(R.why) end
    local t = { 3, nan, 1, 3, -0.0, 2, nan, 1, 0.0, 3, 5, -1 }
    local s = { -1, 0, 1, 1, 2, 5, nan }
    local q = { 1, nan, 4, 2, nan, nan, nan, nan, 3, 0.5, nan, 7 }
    local g = { 2, 1, 2, 0, 1, 1, 2, 1, 2, 0, 1, 1, 2, 0, 2 }
    local o = R.numpy({ a = { { 12 }, t }, s = { { 7 }, s }, q = { { 3, 4 }, q }, g = { { 5, 3 }, g } }, {
      "np.unique(a, equal_nan=False)",
      "np.unique(a, return_index=True, equal_nan=False)[1] + 1",
      "np.unique(a, return_inverse=True, equal_nan=False)[1] + 1",
      "np.unique(a, return_counts=True, equal_nan=False)[1]",
      "np.searchsorted(s, a, side='left') + 1",
      "np.searchsorted(s, a, side='right') + 1",
      "np.searchsorted(s[::-1], a, sorter=np.arange(7)[::-1].copy()) + 1",
      "np.isin(a, s)", "np.isin(a, s, invert=True)",
      "(__import__('warnings').simplefilter('ignore'), np.nanquantile(q, 0.3, axis=1))[1]", "np.nanquantile(q, 0.75, axis=0)", "np.nanquantile(q, 0.5)",
      "np.unique(g, axis=0)", "np.unique(g, axis=0, return_index=True)[1] + 1",
      "np.unique(g, axis=0, return_inverse=True)[1] + 1", "np.unique(g, axis=0, return_counts=True)[1]",
      "np.unique(g, axis=1)", "np.unique(g, axis=1, return_index=True)[1] + 1",
      "np.unique(g, axis=1, return_inverse=True)[1] + 1", "np.unique(g, axis=1, return_counts=True)[1]",
    })
    -- signless: NumPy's unique keeps whichever of -0.0 and 0.0 its
    -- unstable sort puts first; gpumat the first occurrence
    local function check(want, got, what, signless)
      local g = flat(got)
      assert.are.equal(#want[2], #g, what)
      for k = 1, #g do
        local v = g[k]
        if type(v) == "boolean" then v = v and 1 or 0 end
        if signless and v == 0 then v = want[2][k] end
        same(want[2][k], v, what .. " " .. k)
      end
    end
    for _, place in ipairs(places) do
      place[2](function()
        local a = gm.array_to_mat(t)
        for _, ct in ipairs({ "double", "float" }) do
          local x = a:as(ct)
          local v, i, inv, cnt = gm.unique_all(x)
          check(o[1], v, ct .. " unique values", true)
          check(o[2], i, ct .. " unique indices")
          check(o[3], inv, ct .. " unique inverse")
          check(o[4], cnt, ct .. " unique counts")
          check(o[1], gm.unique_values(x), ct .. " unique_values", true)
          local sm = gm.array_to_mat(s):as(ct)
          check(o[5], gm.searchsorted(sm, x), ct .. " searchsorted left")
          check(o[6], gm.searchsorted(sm, x, { side = "right" }), ct .. " searchsorted right")
          local rev = gm.flip(sm):contiguous()
          check(o[7], gm.searchsorted(rev, x, { sorter = gm.argsort(rev) }), ct .. " searchsorted sorter")
          check(o[8], gm.isin(x, sm), ct .. " isin")
          check(o[9], gm.isin(x, sm, { invert = true }), ct .. " isin invert")
        end
        local qm = gm.array_to_mat(q):view(3, 4)
        check(o[10], gm.nanquantile(qm, 0.3, { axis = 2 }), "nanquantile axis 2")
        check(o[11], gm.nanquantile(qm, 0.75, { axis = 1 }), "nanquantile axis 1")
        same(o[12][2][1], gm.nanquantile(qm, 0.5), "nanquantile of all")
        -- unique along an axis: lexicographic slices (NumPy's unique(axis))
        for _, ct in ipairs({ "int32", "double" }) do
          local gmat = mk(ct, { 5, 3 }, g)
          for axis = 1, 2 do
            local res = { gm.unique_all(gmat, { axis = axis }) }
            local at = 12 + 4 * (axis - 1)
            for k, what in ipairs({ "values", "indices", "inverse", "counts" }) do
              check(o[at + k], res[k], ct .. " unique axis " .. axis .. " " .. what)
            end
          end
        end
      end)
    end
  end)
end)
