-- Searching and sets (API.md "Sorting, searching and sets"): gm.searchsorted,
-- gm.isin, the standard's unique_values / unique_counts / unique_inverse /
-- unique_all, and gm.nanquantile.  The work runs where the operands live,
-- on the sort engine (core._lines_axis, core._sort_axis) and its binary
-- search (core._search) in kernels/scan.h; ordering.lua passes its option
-- helpers in.
local argerror = require("gpumat.argcheck").argerror

return function(gm, core, methods, h)
  local options, check_mat, axis_of = h.options, h.check_mat, h.axis_of
  local ARGSORT, UNIQUE, UNIQUE_ROWS = 0, 3, 4
  local LEFT, RIGHT, ISIN, NOTIN = 0, 1, 2, 3

  -- m as a contiguous 1-d mat of its elements (row-major).
  local function flat(m) return m:contiguous():view(m:size()) end

  -- a and b converted to their common type (gm.result_type) when they differ.
  local function common(a, b)
    if a:ctype() == b:ctype() then return a, b end
    local t = gm.result_type(a, b)
    return a:dtype() == t and a or a:as(t), b:dtype() == t and b or b:as(t)
  end

  -- gm.searchsorted(x1, x2, {side = "left", sorter}): for each element of
  -- x2 the 1-based position at which inserting it keeps the 1-d x1 sorted
  -- (NumPy's index + 1, in 1..n + 1): "left" the first such, "right" the
  -- last.  NaN sorts last as in gm.sort; sorter (int64, 1-based, gm.argsort
  -- of x1) reads x1 in sorted order.  int64 mat of x2's dims (a Lua
  -- integer for a number x2).  Different ctypes meet in gm.result_type.
  function gm.searchsorted(x1, x2, opts)
    check_mat(x1, "searchsorted")
    local scalar = type(x2) == "number"
    if scalar then x2 = gm.array_to_mat({ x2 }) end
    if getmetatable(x2) ~= getmetatable(x1) then argerror(2, "searchsorted", "gpumat.mat expected, got %s", type(x2)) end
    opts = options(opts, 3, "searchsorted", { side = true, sorter = true })
    if #x1:dims() ~= 1 then argerror(1, "searchsorted", "x1 must be 1-d, got rank %d", #x1:dims()) end
    local side = opts.side or "left"
    if side ~= "left" and side ~= "right" then
      argerror(3, "searchsorted", "side must be \"left\" or \"right\", got %s", tostring(side))
    end
    local sorter = opts.sorter
    if sorter ~= nil then
      if getmetatable(sorter) ~= getmetatable(x1) or sorter:dtype() ~= "int64" or #sorter:dims() ~= 1
        or sorter:size() ~= x1:size() then
        argerror(3, "searchsorted", "sorter must be a 1-d int64 mat of %d elements", x1:size())
      end
      local n = x1:size()
      local sorted = n > 0 and core._lines_axis(sorter, 1, ARGSORT, false, true)
      if n > 0 and (sorted[1] < 1 or sorted[n] > n) then
        argerror(3, "searchsorted", "sorter holds a position outside 1..%d", x1:size())
      end
    end
    local a, b = common(x1, x2)
    local p = core._search(a, sorter, b, side == "left" and LEFT or RIGHT)
    if scalar then return p[1] end
    return p
  end

  -- gm.isin(x, test_elements, {invert = false}): bool mat of x's dims,
  -- true where the element equals one of test_elements (== decides, so a
  -- NaN is in nothing); invert negates.  test_elements may be a Lua list
  -- (double values); different ctypes meet in gm.result_type.
  function gm.isin(x, test, opts)
    check_mat(x, "isin")
    if type(test) == "table" and getmetatable(test) == nil then test = gm.array_to_mat(test) end
    if getmetatable(test) ~= getmetatable(x) then argerror(2, "isin", "gpumat.mat expected, got %s", type(test)) end
    opts = options(opts, 3, "isin", { invert = true })
    local a, b = common(x, test)
    local s = core._lines_axis(flat(b), 1, ARGSORT, false, true)
    return core._search(s, nil, a, opts.invert and NOTIN or ISIN)
  end

  -- unique_all of the slices of x along axis (NumPy's unique(axis)): the
  -- axis moved first, the rest flattened to rows, the unique rows moved back.
  local function unique_axis(x, axis, fname)
    local r = #x:dims()
    local a = axis_of(x, axis, 2, fname)
    local order, back = { a }, {}
    for k = 1, r do
      if k ~= a then order[#order + 1] = k end
    end
    for k, o in ipairs(order) do back[o] = k end
    local n = x:dim(a)
    local moved = x:permute(table.unpack(order)):contiguous()
    local mdims = moved:dims()
    local rows = moved:view(n, n == 0 and 0 or moved:size() // n)
    if n > 0 and rows:dim(2) == 0 then argerror(1, fname, "the slices along axis %d are empty", a) end
    local v, yi = core._lines_axis(rows, 1, UNIQUE_ROWS, false, true)
    local u = yi[3 * n + 1]
    mdims[1] = u
    local vals = v:narrow(1, 1, u):contiguous():view(mdims):permute(table.unpack(back)):contiguous()
    return vals, yi:narrow(1, 1, u):contiguous(), yi:narrow(1, 2 * n + 1, n):contiguous(),
      yi:narrow(1, n + 1, u):contiguous()
  end

  -- The standard's unique_all of x (flattened): sorted values (NaNs each
  -- distinct), first positions, inverse (x's dims) and counts; int64,
  -- 1-based.  {axis = k}: NumPy's unique along axis (unique slices in
  -- lexicographic order; the inverse then has the axis' length).
  local function unique_all(x, opts, fname)
    check_mat(x, fname)
    opts = options(opts, 2, fname, { axis = true })
    if opts.axis ~= nil then return unique_axis(x, opts.axis, fname) end
    local f = flat(x)
    local n = f:size()
    local v, yi = core._lines_axis(f, 1, UNIQUE, false, true)
    local u = yi[3 * n + 1]
    local inverse = yi:narrow(1, 2 * n + 1, n):contiguous():view(x:dims())
    return v:narrow(1, 1, u):contiguous(), yi:narrow(1, 1, u):contiguous(), inverse,
      yi:narrow(1, n + 1, u):contiguous()
  end
  function gm.unique_all(x, opts) return unique_all(x, opts, "unique_all") end
  -- unique_values needs neither positions nor counts: the values sorted
  -- (no positions carried: the radix sort moves only the keys) and each
  -- run's first kept (stream compaction where it differs from the one
  -- before; != keeps every NaN, and -0.0 == 0.0 keeps the run's first, as
  -- unique_all does).
  function gm.unique_values(x, opts)
    check_mat(x, "unique_values")
    opts = options(opts, 2, "unique_values", { axis = true })
    if opts.axis ~= nil then return (unique_axis(x, opts.axis, "unique_values")) end
    local s = gm.sort(flat(x))
    local n = s:size()
    if n <= 1 then return s end
    local rest = s:narrow(1, 2, n - 1)
    return gm.concat({ s:narrow(1, 1, 1), gm.masked_select(rest, gm.not_equal(rest, s:narrow(1, 1, n - 1))) })
  end
  function gm.unique_counts(x, opts)
    local v, _, _, c = unique_all(x, opts, "unique_counts")
    return v, c
  end
  function gm.unique_inverse(x, opts)
    local v, _, i = unique_all(x, opts, "unique_inverse")
    return v, i
  end

  -- gm.nanquantile(m, q, {axis, keepdims}): gm.quantile's linear method
  -- over the non-NaN elements of each line (NaN where a line has none),
  -- as NumPy's nanquantile.  The sorted line has its NaNs last, so the
  -- count c of the others picks positions q (c - 1) per line.
  function gm.nanquantile(m, q, opts)
    check_mat(m, "nanquantile")
    if type(q) ~= "number" or not (q >= 0 and q <= 1) then
      argerror(2, "nanquantile", "q must be a number in [0, 1], got %s", tostring(q))
    end
    opts = options(opts, 3, "nanquantile", { axis = true, keepdims = true })
    m = h.float_stats(m, "nanquantile")
    local x, axis = m, 1
    if opts.axis == nil then x = flat(m) else axis = axis_of(m, opts.axis, 3, "nanquantile") end
    local n = x:dim(axis)
    if n == 0 then argerror(1, "nanquantile", "axis %d is empty", axis) end
    local s = core._sort_axis(x, axis, false)
    local ct = s:ctype()
    local c = gm.sum(gm.eq(s, s):as(ct), axis, { keepdims = true })
    local pos = (c - 1) * q
    local shape = {}
    for k = 1, #x:dims() do shape[k] = k == axis and n or 1 end
    local iota = gm.range(0, n - 1, 1, { ctype = ct }):view(shape)
    -- lo = floor(pos): the count of positions at or below pos, less one
    local lo = gm.sum(gm.le(iota, pos):as(ct), axis, { keepdims = true }) - 1
    local t = pos - lo
    local hi = gm.cmin(lo + 1, gm.cmax(c - 1, 0))
    local zero = gm.zeros_like(s)
    local function pick(p) return gm.sum(gm.where(gm.eq(iota, p), s, zero), axis, { keepdims = true }) end
    local a, b = pick(lo), pick(hi)
    local d = b - a
    local up = gm.ge(t, 0.5)
    local y = gm.where(up, b - gm.cmul(d, 1 - t), a + gm.cmul(d, t))
    y = gm.where(gm.eq(a, b), a, y)
    y = gm.where(gm.eq(c, 0), c * (0 / 0), y)
    if opts.axis == nil then return y[1] end
    if opts.keepdims then return y end
    local dims = {}
    for k, dd in ipairs(x:dims()) do
      if k ~= axis then dims[#dims + 1] = dd end
    end
    return y:view(dims)
  end
end
