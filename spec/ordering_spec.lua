-- Ordering and scans: gm.sort (stability, NaN placement, every axis,
-- strided inputs), gm.cumulative_sum/cumulative_prod (m:cumsum,
-- m:cumprod), gm.diff, gm.median, gm.flip; against plain-Lua references
-- on the host and on the emulated device (the same kernel sources as
-- CUDA), and against NumPy when python3 with numpy is installed.
local gm = require "gpumat"

local EMU = { backend = "emulated" }
local nan = 0 / 0

local function isnan(x) return x ~= x end

-- a plain-Lua stable insertion sort with the library's order: ascending
-- with NaN last, descending with NaN first
local function before(a, b, desc)
  if desc then return a > b or (isnan(a) and not isnan(b)) end
  return a < b or (isnan(b) and not isnan(a))
end
local function ref_sort(t, desc)
  local r = {}
  for i, v in ipairs(t) do
    local j = i
    while j > 1 and before(v, r[j - 1], desc) do
      r[j] = r[j - 1]
      j = j - 1
    end
    r[j] = v
  end
  return r
end

-- same values, NaN equal to NaN, -0.0 told from 0.0
local function same_bits(want, got, what)
  assert.are.equal(#want, #got, what)
  for i = 1, #want do
    local w, g = want[i], got[i]
    local ok = (isnan(w) and isnan(g)) or (w == g and 1 / w == 1 / g)
    if not ok then error(string.format("%s: element %d is %s, want %s", what, i, tostring(g), tostring(w)), 2) end
  end
end

-- a mat's elements in row-major order as Lua numbers (bool as 0 and 1)
local function flat_numbers(m)
  local out = {}
  local function rec(x)
    if type(x) == "table" then
      for _, v in ipairs(x) do rec(v) end
    elseif type(x) == "boolean" then
      out[#out + 1] = x and 1 or 0
    else
      out[#out + 1] = x
    end
  end
  rec(m:to_table())
  return out
end

-- a deterministic pseudo-random sequence (an LCG) with repeats and NaN
local function values(n, seed, with_nan)
  local t, s = {}, seed
  for i = 1, n do
    s = (s * 1103515245 + 12345) % 2147483648
    t[i] = (s % 17) - 8 + ((s // 17) % 4) / 4
    if with_nan and s % 11 == 0 then t[i] = nan end
  end
  return t
end

-- the lines of a 3-d table along axis (1..3), and how to put them back
local function lines(t, dims, axis)
  local out = {}
  local other = {}
  for a = 1, 3 do
    if a ~= axis then other[#other + 1] = a end
  end
  for i = 1, dims[other[1]] do
    for j = 1, dims[other[2]] do
      local line = {}
      for k = 1, dims[axis] do
        local idx = {}
        idx[other[1]], idx[other[2]], idx[axis] = i, j, k
        line[k] = t[idx[1]][idx[2]][idx[3]]
      end
      out[#out + 1] = line
    end
  end
  return out
end

local function nested(flat, dims)
  local t, k = {}, 0
  for i = 1, dims[1] do
    t[i] = {}
    for j = 1, dims[2] do
      t[i][j] = {}
      for l = 1, dims[3] do
        k = k + 1
        t[i][j][l] = flat[k]
      end
    end
  end
  return t
end

local places = require("device_ops").places

for _, place in ipairs(places) do
  local where, run = place[1], place[2]

  describe("gm.sort on " .. where, function()
    it("sorts every axis of a 3-d mat, ascending and descending, both ctypes", function()
      run(function()
        local dims = { 3, 4, 5 }
        for _, ctype in ipairs({ "double", "float" }) do
          local m = gm.array_to_mat(nested(values(60, 7, true), dims), { ctype = ctype })
          local t = m:to_table()
          for axis = 1, 3 do
            for _, desc in ipairs({ false, true }) do
              local s = gm.sort(m, { axis = axis, descending = desc })
              assert.are.same(dims, s:dims())
              assert.are.equal(ctype, s:ctype())
              local want, got = lines(t, dims, axis), lines(s:to_table(), dims, axis)
              for i = 1, #want do
                same_bits(ref_sort(want[i], desc), got[i], ctype .. " axis " .. axis .. (desc and " desc" or ""))
              end
            end
          end
          -- the default axis is the last one
          same_bits(lines(gm.sort(m, { axis = 3 }):to_table(), dims, 1)[1], lines(m:sort():to_table(), dims, 1)[1], "default")
        end
      end)
    end)

    it("is stable: equal keys keep their order (-0.0 and 0.0)", function()
      run(function()
        local t = { 0.0, -0.0, 1, -0.0, 0.0, -1, -0.0 }
        local m = gm.array_to_mat(t)
        same_bits({ -1, 0.0, -0.0, -0.0, 0.0, -0.0, 1 }, m:sort():to_table(), "ascending")
        same_bits({ 1, 0.0, -0.0, -0.0, 0.0, -0.0, -1 }, m:sort({ descending = true }):to_table(), "descending")
        same_bits({ -1, 0.0, -0.0, -0.0, 0.0, -0.0, 1 }, m:sort({ stable = false }):to_table(), "stable = false")
      end)
    end)

    it("puts NaN last ascending and first descending", function()
      run(function()
        local m = gm.array_to_mat({ nan, 2, -math.huge, nan, math.huge, 1 })
        same_bits({ -math.huge, 1, 2, math.huge, nan, nan }, m:sort():to_table(), "ascending")
        same_bits({ nan, nan, math.huge, 2, 1, -math.huge }, m:sort({ descending = true }):to_table(), "descending")
      end)
    end)

    it("sorts lines of every length 0..40 and a long one (every merge width)", function()
      run(function()
        for n = 0, 40 do
          local t = values(n, n + 3, n % 3 == 0)
          local got = n == 0 and {} or gm.array_to_mat(t):sort():to_table()
          if n == 0 then assert.are.same({ 0 }, gm.sort(gm.mat(0)):dims()) end
          same_bits(ref_sort(t, false), got, "length " .. n)
        end
        local t = values(3001, 99, true)
        same_bits(ref_sort(t, true), gm.array_to_mat(t):sort({ descending = true }):to_table(), "length 3001")
      end)
    end)

    it("sorts strided views (negative steps, transposes) without touching them", function()
      run(function()
        local m = gm.array_to_mat({ { 5, 1, 4 }, { 2, 6, 3 } })
        assert.are.same({ { 3, 1, 2 }, { 4, 6, 5 } }, gm.sort(m[{ {}, { -1, 1, -1 } }], { axis = 1 }):to_table())
        assert.are.same({ { 2, 5 }, { 1, 6 }, { 3, 4 } }, m:t():sort():to_table())
        assert.are.same({ { 5, 1, 4 }, { 2, 6, 3 } }, m:to_table())
      end)
    end)
  end)

  describe("scans on " .. where, function()
    it("cumulative_sum and cumulative_prod along each axis", function()
      run(function()
        local m = gm.array_to_mat({ { { 1, 2 }, { 3, 4 }, { 5, 6 } }, { { 0.5, -1 }, { 2, 0 }, { -3, 0.25 } } })
        assert.are.same({ { { 1, 2 }, { 3, 4 }, { 5, 6 } }, { { 1.5, 1 }, { 5, 4 }, { 2, 6.25 } } },
          gm.cumulative_sum(m, { axis = 1 }):to_table())
        assert.are.same({ { { 1, 2 }, { 4, 6 }, { 9, 12 } }, { { 0.5, -1 }, { 2.5, -1 }, { -0.5, -0.75 } } },
          gm.cumulative_sum(m, { axis = 2 }):to_table())
        assert.are.same({ { { 1, 3 }, { 3, 7 }, { 5, 11 } }, { { 0.5, -0.5 }, { 2, 2 }, { -3, -2.75 } } },
          m:cumsum(-1):to_table())
        assert.are.same({ { { 1, 2 }, { 3, 8 }, { 15, 48 } }, { { 0.5, -1 }, { 1, 0 }, { -3, 0 } } },
          m:cumprod(2):to_table())
        assert.are.same({ { { 1, 2 }, { 3, 4 }, { 5, 6 } }, { { 0.5, -2 }, { 6, 0 }, { -15, 1.5 } } },
          gm.cumulative_prod(m, { axis = 1 }):to_table())
      end)
    end)

    it("include_initial puts the identity first; an empty axis gives just it", function()
      run(function()
        local v = gm.array_to_mat({ 2, 3, 4 })
        assert.are.same({ 0, 2, 5, 9 }, gm.cumulative_sum(v, { include_initial = true }):to_table())
        assert.are.same({ 1, 2, 6, 24 }, gm.cumulative_prod(v, { include_initial = true }):to_table())
        assert.are.same({ 2, 5, 9 }, gm.cumulative_sum(v):to_table())
        local e = gm.mat({ 2, 0 })
        assert.are.same({ { 0 }, { 0 } }, gm.cumulative_sum(e, { axis = 2, include_initial = true }):to_table())
        assert.are.same({ { 1 }, { 1 } }, gm.cumulative_prod(e, { axis = 2, include_initial = true }):to_table())
        assert.are.same({ 2, 0 }, gm.cumulative_sum(e, { axis = 2 }):dims())
      end)
    end)

    it("accumulates in the ctype, sequentially, within float's tolerance", function()
      run(function()
        local t = values(500, 5, false)
        local m = gm.array_to_mat(t, { ctype = "float" })
        local got, s = m:cumsum():to_table(), 0
        local src = m:to_table()
        for i = 1, #t do
          s = s + src[i]
          assert.is_true(math.abs(got[i] - s) <= 1e-4 * (1 + math.abs(s)), "element " .. i)
        end
      end)
    end)

    it("runs long lines in chunks (core._set_chunk) with the sequential results, every ctype", function()
      local core = require "gpumat.core"
      local ALL = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float", "double" }
      -- v flat row-major (dims r x c) scanned along axis (1 or 2) in plain Lua
      local function ref(v, dims, axis, prod, initial)
        local sh, out = initial and 1 or 0, {}
        local oc = dims[2] + (axis == 2 and sh or 0)
        local outer, len = dims[3 - axis], dims[axis]
        for o = 1, outer do
          local acc = prod and 1 or 0
          local function put(k, x) -- k-th element (0-based) of line o
            local r, c = axis == 2 and o or k + 1, axis == 2 and k + 1 or o
            out[(r - 1) * oc + c] = x
          end
          if initial then put(0, acc) end
          for k = 1, len do
            local x = axis == 2 and v[(o - 1) * dims[2] + k] or v[(k - 1) * dims[2] + o]
            acc = prod and acc * x or acc + x
            put(k - 1 + sh, acc)
          end
        end
        return out
      end
      finally(function() core._set_chunk(0) end)
      core._set_chunk(4) -- lines of 19: five chunks, the last one partial
      run(function()
        for _, ct in ipairs(ALL) do
          for axis = 1, 2 do
            local dims = axis == 2 and { 3, 19 } or { 19, 3 }
            local sv, pv = {}, {}
            for i = 1, 57 do
              sv[i] = ct == "bool" and i % 3 // 2 or (i * 5) % 7 - (ct:find("^u") and 0 or 3)
              pv[i] = ct == "bool" and 1 - i % 7 // 6 or 1 + i % 2
            end
            for _, initial in ipairs({ false, true }) do
              local o = { axis = axis, include_initial = initial }
              local what = ("%s axis %d initial %s"):format(ct, axis, tostring(initial))
              local s = gm.cumulative_sum(gm.array_to_mat(sv, { ctype = ct }):reshape(dims), o)
              local p = gm.cumulative_prod(gm.array_to_mat(pv, { ctype = ct }):reshape(dims), o)
              same_bits(ref(sv, dims, axis, false, initial), flat_numbers(s), "cumsum " .. what)
              same_bits(ref(pv, dims, axis, true, initial), flat_numbers(p), "cumprod " .. what)
            end
          end
        end
      end)
    end)

    it("scans strided views", function()
      run(function()
        local m = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
        assert.are.same({ { 3, 5, 6 }, { 6, 11, 15 } }, m[{ {}, { -1, 1, -1 } }]:cumsum(2):to_table())
        assert.are.same({ { 1, 4 }, { 3, 9 }, { 6, 15 } }, m:t():cumsum(1):to_table())
      end)
    end)
  end)

  describe("diff, median and flip on " .. where, function()
    it("gm.diff: n-th differences, axis, prepend and append", function()
      run(function()
        local m = gm.array_to_mat({ { 1, 4, 9, 16 }, { 2, 3, 5, 8 } })
        assert.are.same({ { 3, 5, 7 }, { 1, 2, 3 } }, gm.diff(m):to_table())
        assert.are.same({ { 2, 2 }, { 1, 1 } }, m:diff({ n = 2 }):to_table())
        assert.are.same({ { 1, -1, -4, -8 } }, m:diff({ axis = 1 }):to_table())
        assert.are.same({ { 1, 3, 5, 7 }, { 2, 1, 2, 3 } }, m:diff({ prepend = gm.zeros(2, 1) }):to_table())
        assert.are.same({ { 1, 3, 5, 7 }, { 2, 1, 2, 3 } }, m:diff({ prepend = 0 }):to_table())
        assert.are.same({ 1, 1, 1, 6 }, gm.diff(gm.arange(1, 5), { append = 10 }):to_table())
        assert.are.same({ { 3, 5, 7, -16 }, { 1, 2, 3, -8 } }, m:diff({ append = gm.zeros(2, 1) }):to_table())
        assert.are.same({ 2, 0 }, m:diff({ n = 4 }):dims())
        assert.are.same(m:to_table(), m:diff({ n = 0 }):to_table())
      end)
    end)

    it("gm.median: NumPy's (mean of the middle two, NaN when a NaN is in the line)", function()
      run(function()
        local m = gm.array_to_mat({ { 3, 1, 2, 4 }, { 1, nan, 2, 3 }, { 7, 7, -1, 0 } })
        local r = gm.median(m, { axis = 2 }):to_table()
        assert.are.equal(2.5, r[1])
        assert.is_true(isnan(r[2]))
        assert.are.equal(3.5, r[3])
        assert.are.same({ 3, 1 }, gm.median(m, { axis = 2, keepdims = true }):dims())
        local c = gm.median(m, { axis = 1 }):to_table()
        assert.are.equal(3, c[1])
        assert.is_true(isnan(c[2]))
        assert.are.same({ 2, 3 }, { c[3], c[4] })
        assert.are.equal(3, gm.median(gm.array_to_mat({ 5, 1, 3 })))
        assert.are.equal(1.5, gm.median(gm.array_to_mat({ { 1, 2 }, { 3, 0 } }))) -- of every element: 0, 1, 2, 3
      end)
    end)

    it("gm.quantile: NumPy's linear method, NaN when a NaN is in the line", function()
      run(function()
        local m = gm.array_to_mat({ { 3, 1, 2, 4, 10 }, { 1, nan, 2, 3, 5 }, { 7, 7, 7, 7, 7 } })
        local r = gm.quantile(m, 0.7, { axis = 2 }):to_table()
        assert.is_true(math.abs(r[1] - 3.8) < 1e-15)
        assert.is_true(isnan(r[2]))
        assert.are.equal(7, r[3])
        assert.are.same({ 1, 7 }, { gm.quantile(m, 0, { axis = 2 })[1], gm.quantile(m, 1, { axis = 2 })[3] })
        assert.are.same({ 3, 1 }, gm.quantile(m, 0.5, { axis = 2, keepdims = true }):dims())
        assert.are.equal(2.5, gm.quantile(gm.array_to_mat({ 4, 1, 2, 3 }), 0.5))
      end)
    end)

    it("gm.flip: a view with negative strides on the same storage", function()
      run(function()
        local m = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
        local f = gm.flip(m)
        assert.are.same({ { 6, 5, 4 }, { 3, 2, 1 } }, f:to_table())
        assert.are.same({ -3, -1 }, f:strides())
        assert.are.same({ { 3, 2, 1 }, { 6, 5, 4 } }, m:flip({ axis = 2 }):to_table())
        assert.are.same({ { 4, 5, 6 }, { 1, 2, 3 } }, m:flip({ axis = { -2 } }):to_table())
        f[{ 1, 1 }] = 60
        assert.are.equal(60, m[{ 2, 3 }])
        assert.are.equal(60 + 15, f:sum())
        assert.are.same({ 0, 3 }, gm.flip(gm.mat({ 0, 3 })):dims())
      end)
    end)
  end)
end

describe("the emulated device runs kernels/scan.cu", function()
  local function launches()
    local t = {}
    for k, v in pairs(gm.emulated_kernel_launches()) do t[k] = v.launches end
    return t
  end
  it("lines_kernel (sort) and scan_kernel per ctype, one launch per call", function()
    for _, ctype in ipairs({ "float", "double" }) do
      local before = launches()
      gm.with_cuda(EMU, function()
        local m = gm.array_to_mat({ { 3, 1 }, { 2, 0 } }, { ctype = ctype })
        assert.are.same({ { 1, 3 }, { 0, 2 } }, m:sort():to_table())
        assert.are.same({ { 3, 1 }, { 5, 1 } }, m:cumsum(1):to_table())
        assert.are.same({ { 3, 1 }, { 6, 0 } }, m:cumprod(1):to_table())
      end)
      local after = launches()
      local function d(k) return (after[k] or 0) - (before[k] or 0) end
      assert.are.equal(1, d("lines_kernel<" .. ctype .. ">"))
      assert.are.equal(2, d("scan_kernel<" .. ctype .. ">"))
    end
  end)
  it("a long line runs the chunked passes, one launch each", function()
    local core = require "gpumat.core"
    finally(function() core._set_chunk(0) end)
    core._set_chunk(4)
    local before = launches()
    gm.with_cuda(EMU, function()
      local m = gm.array_to_mat({ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, { ctype = "double" })
      assert.are.same({ 0, 1, 3, 6, 10, 15, 21, 28, 36, 45, 55 }, gm.cumulative_sum(m, { include_initial = true }):to_table())
    end)
    local after = launches()
    for _, k in ipairs({ "scan_total_kernel<double>", "scan_carry_kernel<double>", "scan_apply_kernel<double>" }) do
      assert.are.equal(1, (after[k] or 0) - (before[k] or 0), k)
    end
    assert.are.equal(before["scan_kernel<double>"] or 0, after["scan_kernel<double>"] or 0)
  end)
end)

describe("ordering errors", function()
  local m = gm.array_to_mat({ { 1, 2 }, { 3, 4 } })
  it("names the function and the argument", function()
    assert.has_error(function() gm.sort(m, { axis = 3 }) end, "bad argument #2 to 'sort' (axis 3 is out of range 1..2 (or -2..-1))")
    assert.has_error(function() gm.sort(m, { order = 1 }) end, "bad argument #2 to 'sort' (unknown option 'order')")
    assert.has_error(function() gm.sort(1) end, "bad argument #1 to 'sort' (gpumat.mat expected, got number)")
    assert.has_error(function() gm.cumulative_sum(m) end, "bad argument #2 to 'cumulative_sum' (axis is required for a rank 2 mat)")
    assert.has_error(function() gm.cumulative_sum(m, { axis = 1, dtype = "int64" }) end,
      "bad argument #2 to 'cumulative_sum' (option 'dtype' int64: the scan of a float64 mat is float64 (or give float32 or float64))")
    assert.has_error(function() gm.diff(m, { n = -1 }) end, "bad argument #2 to 'diff' (n must be a non-negative integer, got -1)")
    assert.has_error(function() gm.diff(m, { prepend = "0" }) end,
      "bad argument #2 to 'diff' (option 'prepend' must be a mat or a number, got string)")
    assert.has_error(function() gm.flip(m, { axis = { 1, -2 } }) end, "bad argument #2 to 'flip' (axis 1 appears twice)")
    assert.has_error(function() gm.median(gm.mat({ 2, 0 }), { axis = 2 }) end, "bad argument #1 to 'median' (axis 2 is empty)")
    assert.has_error(function() gm.quantile(m, 1.5) end, "bad argument #2 to 'quantile' (q must be a number in [0, 1], got 1.5)")
    assert.has_error(function() gm.quantile(m, 0.5, { method = "nearest" }) end,
      "bad argument #3 to 'quantile' (method 'nearest' is not supported yet (only \"linear\"))")
    assert.has_error(function() gm.sort(m, 1, 2) end)
    assert.are.same({ { 1, 2 }, { 3, 4 } }, m:to_table())
  end)
end)

describe("against NumPy", function()
  local function run_py(py, code)
    local p = io.popen(py .. " -c '" .. code .. "' 2>/dev/null")
    local out = p and p:read("a") or ""
    if p then p:close() end
    return out
  end
  -- the first python3 that has numpy (a pyenv shim may shadow the system's)
  local python
  for _, py in ipairs({ "python3", "/usr/bin/python3" }) do
    if not python and run_py(py, "import numpy; print(1)"):match("^1") then python = py end
  end
  local has_numpy = python ~= nil
  local function numpy(code) return run_py(python, code) end

  it("sort, cumsum, diff and median agree with numpy on the same values", function()
    if not has_numpy then return pending("python3 with numpy is not installed") end
    local t = values(24, 11, true)
    local lit = {}
    for i, v in ipairs(t) do lit[i] = isnan(v) and "nan" or string.format("%.17g", v) end
    local src = "import numpy as np; nan = np.nan; a = np.array([" .. table.concat(lit, ",") .. "]).reshape(4, 6); " ..
      "p = lambda x: print(\" \".join(repr(float(v)) for v in np.ravel(x))); " ..
      "p(np.sort(a, axis=1, kind=\"stable\")); p(np.sort(a, axis=0, kind=\"stable\")); p(np.cumsum(a, axis=1)); " ..
      "p(np.diff(a, axis=0)); p(np.median(np.nan_to_num(a), axis=1)); p(np.flip(a, axis=1)); " ..
      "[p(np.quantile(np.nan_to_num(a), q, axis=0)) for q in (0, 0.1, 0.37, 0.5, 0.9, 1)]; p(np.quantile(a, 0.3, axis=1))"
    local out = {}
    for line in numpy(src):gmatch("[^\n]+") do
      local row = {}
      for w in line:gmatch("%S+") do row[#row + 1] = w == "nan" and nan or tonumber(w) end
      out[#out + 1] = row
    end
    assert.are.equal(13, #out)
    local rows = {}
    for i = 1, 4 do
      rows[i] = {}
      for j = 1, 6 do rows[i][j] = t[(i - 1) * 6 + j] end
    end
    local function flat(m)
      local r = {}
      for k = 1, m:size() do r[k] = m[k] end
      return r
    end
    for _, place in ipairs(places) do
      place[2](function()
        -- made where they are used: under GPUMAT_DEVICE=cuda the first
        -- place is the GPU, and a mat with a facet there cannot go to the
        -- emulated device
        local a = gm.array_to_mat(rows)
        local clean = gm.where(gm.ne(a, a), gm.zeros(4, 6), a)
        same_bits(out[1], flat(gm.sort(a, { axis = 2 })), "sort axis 2")
        same_bits(out[2], flat(gm.sort(a, { axis = 1 })), "sort axis 1")
        same_bits(out[3], flat(gm.cumulative_sum(a, { axis = 2 })), "cumsum")
        same_bits(out[4], flat(gm.diff(a, { axis = 1 })), "diff")
        same_bits(out[5], flat(gm.median(clean, { axis = 2 })), "median")
        same_bits(out[6], flat(gm.flip(a, { axis = 2 })), "flip")
        for i, q in ipairs({ 0, 0.1, 0.37, 0.5, 0.9, 1 }) do
          same_bits(out[6 + i], flat(gm.quantile(clean, q, { axis = 1 })), "quantile " .. q)
        end
        same_bits(out[13], flat(gm.quantile(a, 0.3, { axis = 2 })), "quantile with NaN")
      end)
    end
  end)
end)

describe("cumulative_logsumexp and the statistics of integer mats", function()
  local R = require "numpy_ref"
  local inf = math.huge
  -- a: 3 x 5 floats with the hard cases of a running log-sum-exp (far
  -- apart magnitudes, infinities, a NaN); b: 3 x 5 small integers
  local av = { -1000, 0, 1000, -inf, 2, 0.5, -3, nan, 1, 4, -inf, -inf, 3, inf, -2 }
  local bv = { 7, 0, 3, 9, 2, 5, 5, 1, 8, 4, 6, 2, 2, 9, 0 }
  local exprs = {
    "(np.seterr(all='ignore'), np.logaddexp.accumulate(a, axis=1))[1]", "np.logaddexp.accumulate(a, axis=0)",
    "np.logaddexp.accumulate(a.astype(np.float32), axis=1)", "np.logaddexp.accumulate(b, axis=1)",
    "np.median(b.astype(np.int32), axis=1)", "np.median(b.astype(np.uint8))",
    "np.quantile(b.astype(np.int64), 0.3, axis=0)", "np.nanquantile(b.astype(np.int16), 0.7, axis=1)",
  }
  local ref
  setup(function() if R.python then ref = R.numpy({ a = { { 3, 5 }, av }, b = { { 3, 5 }, bv } }, exprs) end end)

  local function near(want, got, tol, what)
    assert.are.same(want[1], got:dims(), what)
    local g = R.flat(got)
    for i, w in ipairs(want[2]) do
      local ok = (w ~= w and g[i] ~= g[i]) or w == g[i] or math.abs(g[i] - w) <= tol * (1 + math.abs(w))
      assert(ok, string.format("%s at %d: got %s, want %s", what, i, tostring(g[i]), tostring(w)))
    end
  end

  for _, place in ipairs(places) do
    it("agree with NumPy on " .. place[1], function()
      if not ref then return pending(R.why) end
      place[2](function()
        local a = R.mk("double", { 3, 5 }, av)
        near(ref[1], gm.cumulative_logsumexp(a, { axis = 2 }), 1e-13, "axis 2")
        near(ref[2], gm.cumulative_logsumexp(a, { axis = -2 }), 1e-13, "axis 1")
        near(ref[3], a:as("float32"):cumulative_logsumexp({ axis = 2 }), 1e-6, "float32")
        local ints = R.mk("int32", { 3, 5 }, bv)
        local c = gm.cumulative_logsumexp(ints, { axis = 2 })
        assert.are.equal("float64", c:dtype())
        near(ref[4], c, 1e-13, "int32 promoted")
        local ii = gm.cumulative_logsumexp(a, { axis = 2, include_initial = true })
        assert.are.same({ -inf, -inf, -inf }, R.flat(ii[{ {}, 1 }]))
        near(ref[1], ii[{ {}, { 2, 6 } }], 1e-13, "include_initial")
        assert.are.equal("float32", gm.cumulative_logsumexp(ints, { axis = 1, dtype = "float32" }):dtype())
        near(ref[5], gm.median(ints, { axis = 2 }), 0, "median of int32")
        assert.are.equal("float64", gm.median(ints, { axis = 2 }):dtype())
        assert.are.equal(ref[6][2][1], gm.median(R.mk("uint8", { 3, 5 }, bv)), "median of uint8")
        near(ref[7], gm.quantile(R.mk("int64", { 3, 5 }, bv), 0.3, { axis = 1 }), 1e-15, "quantile of int64")
        near(ref[8], gm.nanquantile(R.mk("int16", { 3, 5 }, bv), 0.7, { axis = 2 }), 1e-15, "nanquantile of int16")
      end)
    end)
  end

  it("name the function and the argument", function()
    local m = R.mk("double", { 2, 2 }, { 1, 2, 3, 4 })
    assert.has_error(function() gm.cumulative_logsumexp(m) end,
      "bad argument #2 to 'cumulative_logsumexp' (axis is required for a rank 2 mat)")
    assert.has_error(function() gm.cumulative_logsumexp(m, { axis = 1, dtype = "int64" }) end,
      "bad argument #2 to 'cumulative_logsumexp' (option 'dtype' must be float32 or float64, got int64)")
    assert.has_error(function() gm.cumulative_logsumexp(m, { axis = 1, initial = 0 }) end,
      "bad argument #2 to 'cumulative_logsumexp' (unknown option 'initial')")
  end)
end)
