-- Ordering and scans (API.md "The array standard in Lua"): gm.flip (a
-- view with negative strides), gm.sort / m:sort, gm.median, gm.quantile,
-- gm.cumulative_sum / cumulative_prod (m:cumsum, m:cumprod: Torch7's
-- names), gm.cumulative_logsumexp and gm.diff.  The options are read
-- here; the work runs where the operands live: sort and the scans
-- through core._sort_axis / core._scan_axis (src/lua/l_scan.c,
-- core/ops/scan.h, kernels/scan.h on every device), flip through m[{...}],
-- diff and median through views and the broadcasting operators.
local argerror = require("gpumat.argcheck").argerror

return function(gm, core, methods)
  local mat_mt = getmetatable(core.mat(0))
  local function is_mat(x) return getmetatable(x) == mat_mt end

  local function check_mat(m, fname)
    if not is_mat(m) then argerror(1, fname, "gpumat.mat expected, got %s", type(m)) end
    return m
  end

  -- opts: nil, an integer axis (the Torch7 habit m:sort(2)), or a table
  -- whose keys are in `known`; -> a table.
  local function options(opts, n, fname, known)
    if opts == nil then return {} end
    if math.type(opts) == "integer" then return { axis = opts } end
    if type(opts) ~= "table" or is_mat(opts) then
      argerror(n, fname, "options table or axis expected, got %s", is_mat(opts) and "gpumat.mat" or type(opts))
    end
    for k in pairs(opts) do
      if not known[k] then argerror(n, fname, "unknown option '%s'", tostring(k)) end
    end
    return opts
  end

  -- A 1-based axis of m (negative from the end) as a positive one.
  local function axis_of(m, a, n, fname, r)
    r = r or #m:dims() -- (a caller that has the rank passes it: m:dims() makes a table)
    if math.type(a) ~= "integer" then argerror(n, fname, "axis must be an integer, got %s", type(a)) end
    local p = a < 0 and a + r + 1 or a
    if p < 1 or p > r then argerror(n, fname, "axis %d is out of range 1..%d (or -%d..-1)", a, r, r) end
    return p
  end

  -- The statistics of bool and integer mats (median, quantile,
  -- nanquantile) are float64 as NumPy's: m converted first (int64 values
  -- beyond 2^53 round, as NumPy's float64 arithmetic does); float mats
  -- keep their type.
  -- (complex mats have no order: fname refuses them, as the C functions do)
  local function float_stats(m, fname)
    if m:dtype():match("^complex") then
      argerror(1, fname, "a %s mat; this function does not take complex mats", m:dtype())
    end
    return m:dtype():match("^b?float") and m or m:as("float64")
  end

  -- Float ctypes only for now (the dtype option names the result's type).
  -- The scans' input for option dtype: m itself when the scan gives that
  -- type (a float m's own; int64 for bool and signed m, uint64 for
  -- unsigned: NumPy's), m converted for a float dtype.
  local DTYPE = { float = "float32", float32 = "float32", double = "float64", float64 = "float64", int64 = "int64",
    uint64 = "uint64" }
  local function scan_input(m, dtype, n, fname)
    if dtype == nil then return m end
    local d, own = DTYPE[dtype], m:dtype()
    local result = own:match("^b?float") and own or own:match("^uint") and "uint64" or "int64"
    if d == result then return m end
    if d == "float32" or d == "float64" then return m:as(d) end
    argerror(n, fname, "option 'dtype' %s: the scan of a%s %s mat is %s (or give float32 or float64)", tostring(dtype),
      own:match("^[iu]") == "i" and "n" or "", own, result)
  end

  -- gm.flip(m, {axis}): every axis (or the listed ones) reversed, as a
  -- view with negative strides (NumPy returns a view too).
  function gm.flip(m, opts)
    check_mat(m, "flip")
    opts = options(opts, 2, "flip", { axis = true })
    local r = #m:dims()
    local axes = opts.axis
    if axes == nil then
      axes = {}
      for a = 1, r do axes[a] = a end
    elseif type(axes) ~= "table" then
      axes = { axes }
    end
    local subs, seen = {}, {}
    for a = 1, r do subs[a] = {} end
    for _, a in ipairs(axes) do
      local p = axis_of(m, a, 2, "flip")
      if seen[p] then argerror(2, "flip", "axis %d appears twice", p) end
      seen[p] = true
      subs[p] = { -1, 1, -1 }
    end
    if r == 0 then return m end
    return m[subs]
  end

  -- The index-carrying engine's ops (core._lines_axis, kernels/scan.h).
  local ARGSORT, CUMEXT, MODE, UNIQUE = 0, 1, 2, 3
  -- topk and kthvalue select (core._select_axis, kernels/select.h) up to
  -- this k (GM_SELECT_MAX_K); larger k sort the lines.
  local SELECT_MAX_K = 1024

  -- m's axis for the sorting family: opts.axis or -1; a rank-0 mat has none.
  local function sort_axis(m, opts, n, fname)
    if #m:dims() == 0 then argerror(1, fname, "the mat has no axis (rank 0)") end
    return axis_of(m, opts.axis == nil and -1 or opts.axis, n, fname)
  end

  -- gm.sort(m, {axis = -1, descending = false, stable = true}) -> values,
  -- indices (Torch7's pair; int64, 1-based): stable always; NaN last
  -- ascending, first descending; every ctype.
  function gm.sort(m, opts)
    check_mat(m, "sort")
    opts = options(opts, 2, "sort", { axis = true, descending = true, stable = true })
    local axis = sort_axis(m, opts, 2, "sort")
    return core._lines_axis(m, axis, ARGSORT, opts.descending and true or false, true)
  end

  -- gm.argsort(m, {axis = -1, descending = false, stable = true}): the
  -- int64 1-based positions that sort each line (gm.sort's second result).
  function gm.argsort(m, opts)
    check_mat(m, "argsort")
    opts = options(opts, 2, "argsort", { axis = true, descending = true, stable = true })
    local axis = sort_axis(m, opts, 2, "argsort")
    local _, i = core._lines_axis(m, axis, ARGSORT, opts.descending and true or false, false)
    return i
  end

  -- The dims of x without axis (keepdims false) for a 1-long axis result.
  local function drop_axis(y, axis, keep)
    if keep then return y end
    local dims = {}
    for a, d in ipairs(y:dims()) do
      if a ~= axis then dims[#dims + 1] = d end
    end
    return y:view(dims)
  end

  -- k of fname: an integer in lo..n.
  local function check_k(k, lo, n, fname)
    if math.type(k) ~= "integer" or k < lo or k > n then
      argerror(2, fname, "k must be an integer in %d..%d, got %s", lo, n, tostring(k))
    end
  end

  -- gm.topk(m, k, {axis = -1, largest = true, sorted = true}) -> values,
  -- indices: the k largest (smallest) along axis, always in sorted order,
  -- ties in their original order; NaN counts as the largest.  Small k
  -- select without sorting the lines (the same results).
  function gm.topk(m, k, opts)
    check_mat(m, "topk")
    opts = options(opts, 3, "topk", { axis = true, largest = true, sorted = true })
    local axis = sort_axis(m, opts, 3, "topk")
    check_k(k, 0, m:dim(axis), "topk")
    if k >= 1 and k <= SELECT_MAX_K then return core._select_axis(m, axis, k, opts.largest ~= false) end
    local v, i = core._lines_axis(m, axis, ARGSORT, opts.largest ~= false, true)
    return v:narrow(axis, 1, k):contiguous(), i:narrow(axis, 1, k):contiguous()
  end

  -- gm.kthvalue(m, k, {axis = -1, keepdims = false}) -> values, indices:
  -- the k-th smallest (1-based) of each line (NaN last), Torch7's.
  function gm.kthvalue(m, k, opts)
    check_mat(m, "kthvalue")
    opts = options(opts, 3, "kthvalue", { axis = true, keepdims = true })
    local axis = sort_axis(m, opts, 3, "kthvalue")
    check_k(k, 1, m:dim(axis), "kthvalue")
    local v, i
    if k <= SELECT_MAX_K then v, i = core._select_axis(m, axis, k, false)
    else v, i = core._lines_axis(m, axis, ARGSORT, false, true) end
    return drop_axis(v:narrow(axis, k, 1):contiguous(), axis, opts.keepdims),
      drop_axis(i:narrow(axis, k, 1):contiguous(), axis, opts.keepdims)
  end

  -- gm.mode(m, {axis = -1, keepdims = false}) -> values, indices: the most
  -- frequent value of each line (the smallest of several; NaNs count as
  -- one value) and the position of its first occurrence.
  function gm.mode(m, opts)
    check_mat(m, "mode")
    opts = options(opts, 2, "mode", { axis = true, keepdims = true })
    local axis = sort_axis(m, opts, 2, "mode")
    if m:dim(axis) == 0 then argerror(1, "mode", "axis %d is empty", axis) end
    local v, i = core._lines_axis(m, axis, MODE, false, true)
    return drop_axis(v, axis, opts.keepdims), drop_axis(i, axis, opts.keepdims)
  end

  -- gm.cummax(m, axis) / gm.cummin: running extreme and its int64 index
  -- (Torch7's: a tie moves the index to the later element; a NaN takes
  -- over and stays).  axis may be an options table {axis = k}; left out
  -- only for a 1-d m.
  local function cumext(fname, max)
    return function(m, opts)
      check_mat(m, fname)
      opts = options(opts, 2, fname, { axis = true })
      local r = #m:dims()
      if r == 0 then argerror(1, fname, "the mat has no axis (rank 0)") end
      if opts.axis == nil and r > 1 then argerror(2, fname, "axis is required for a rank %d mat", r) end
      return core._lines_axis(m, axis_of(m, opts.axis or 1, 2, fname), CUMEXT, max, true)
    end
  end
  gm.cummax = cumext("cummax", true)
  gm.cummin = cumext("cummin", false)

  -- gm.randperm(n): an int64 permutation of 1..n from gpumat's generator
  -- (the argsort of n uniform draws).
  function gm.randperm(n)
    if math.type(n) ~= "integer" or n < 0 then
      argerror(1, "randperm", "n must be a non-negative integer, got %s", tostring(n))
    end
    if n == 0 then return gm.zeros(0):as("int64") end
    local _, i = core._lines_axis(gm.rand(n), 1, ARGSORT, false, false)
    return i
  end

  -- gm.median(m, {axis, keepdims}): NumPy's median (the mean of the middle
  -- two of an even count; NaN when the line holds a NaN; float64 for
  -- bool and integer m); no axis: of every element, a Lua number.
  function gm.median(m, opts)
    check_mat(m, "median")
    opts = options(opts, 2, "median", { axis = true, keepdims = true })
    m = float_stats(m, "median")
    local x, axis = m, nil
    if opts.axis == nil then
      x = m:contiguous():view(m:size())
      axis = 1
    else
      axis = axis_of(m, opts.axis, 2, "median")
    end
    local n = x:dim(axis)
    if n == 0 then argerror(1, "median", "axis %d is empty", axis) end
    local s = core._sort_axis(x, axis, false)
    local lo, hi = (n + 1) // 2, n // 2 + 1
    local mid = (s:narrow(axis, lo, 1) + s:narrow(axis, hi, 1)) * 0.5
    local last = s:narrow(axis, n, 1) -- NaN iff the line holds one (sorted last)
    local y = gm.where(gm.ne(last, last), last, mid)
    if opts.axis == nil then return y[1] end
    if opts.keepdims then return y end
    local dims = {}
    for a, d in ipairs(x:dims()) do
      if a ~= axis then dims[#dims + 1] = d end
    end
    return y:view(dims)
  end

  -- gm.quantile(m, q, {axis, keepdims, method = "linear"}): NumPy's linear
  -- method for one q in [0, 1]: position q (n - 1) between the sorted
  -- neighbours, interpolated as NumPy's _lerp (from the upper one when the
  -- weight is at least 0.5); NaN when the line holds a NaN.
  function gm.quantile(m, q, opts)
    check_mat(m, "quantile")
    if type(q) ~= "number" or not (q >= 0 and q <= 1) then
      argerror(2, "quantile", "q must be a number in [0, 1], got %s", tostring(q))
    end
    opts = options(opts, 3, "quantile", { axis = true, keepdims = true, method = true })
    m = float_stats(m, "quantile")
    if opts.method ~= nil and opts.method ~= "linear" then
      argerror(3, "quantile", "method '%s' is not supported yet (only \"linear\")", tostring(opts.method))
    end
    local x, axis = m, 1
    if opts.axis == nil then x = m:contiguous():view(m:size()) else axis = axis_of(m, opts.axis, 3, "quantile") end
    local n = x:dim(axis)
    if n == 0 then argerror(1, "quantile", "axis %d is empty", axis) end
    local s = core._sort_axis(x, axis, false)
    local pos = q * (n - 1)
    local lo = math.floor(pos)
    local t = pos - lo
    local a, b = s:narrow(axis, lo + 1, 1), s:narrow(axis, math.min(lo + 2, n), 1)
    local y = t >= 0.5 and b - (b - a) * (1 - t) or a + (b - a) * t
    local last = s:narrow(axis, n, 1)
    y = gm.where(gm.ne(last, last), last, gm.where(gm.eq(a, b), a, y))
    if opts.axis == nil then return y[1] end
    if opts.keepdims then return y end
    local dims = {}
    for k, d in ipairs(x:dims()) do
      if k ~= axis then dims[#dims + 1] = d end
    end
    return y:view(dims)
  end

  -- The scans: (x, {axis, dtype, include_initial}); axis may be left out
  -- for a 1-d x only (the standard's rule).
  local function scan(fname, op)
    return function(x, opts)
      check_mat(x, fname)
      opts = options(opts, 2, fname, { axis = true, dtype = true, include_initial = true })
      local r = #x:dims()
      if r == 0 then argerror(1, fname, "the mat has no axis (rank 0)") end
      if opts.axis == nil and r > 1 then argerror(2, fname, "axis is required for a rank %d mat", r) end
      if op == 2 then
        local d = opts.dtype
        if d ~= nil and DTYPE[d] ~= "float32" and DTYPE[d] ~= "float64" then
          argerror(2, fname, "option 'dtype' must be float32 or float64, got %s", tostring(d))
        end
        float_stats(x, fname)
        x = d and x:dtype() ~= DTYPE[d] and x:as(DTYPE[d]) or float_stats(x, fname)
      else
        x = scan_input(x, opts.dtype, 2, fname)
      end
      local axis = axis_of(x, opts.axis or 1, 2, fname, r)
      return core._scan_axis(x, axis, op, opts.include_initial and true or false)
    end
  end
  gm.cumulative_sum = scan("cumulative_sum", 0)
  gm.cumulative_prod = scan("cumulative_prod", 1)
  -- gm.cumulative_logsumexp(x, {axis, dtype, include_initial}): PyTorch's
  -- logcumsumexp, log(cumulative_sum(exp(x))) computed stably (a running
  -- logaddexp, kernels/scan.h; include_initial puts -inf in front); bool
  -- and integer x give float64 (as gm.logsumexp), dtype float32/float64.
  gm.cumulative_logsumexp = scan("cumulative_logsumexp", 2)
  -- Torch7's m:cumsum(axis) / m:cumprod(axis)
  function gm.cumsum(x, axis) return gm.cumulative_sum(x, { axis = axis }) end
  function gm.cumprod(x, axis) return gm.cumulative_prod(x, { axis = axis }) end

  -- gm.diff(x, {axis = -1, n = 1, prepend, append}): the n-th forward
  -- difference along axis; prepend/append are mats joined to x first.
  function gm.diff(x, opts)
    check_mat(x, "diff")
    opts = options(opts, 2, "diff", { axis = true, n = true, prepend = true, append = true })
    if #x:dims() == 0 then argerror(1, "diff", "the mat has no axis (rank 0)") end
    local axis = axis_of(x, opts.axis == nil and -1 or opts.axis, 2, "diff")
    local n = opts.n == nil and 1 or opts.n
    if math.type(n) ~= "integer" or n < 0 then argerror(2, "diff", "n must be a non-negative integer, got %s", tostring(n)) end
    -- a number stands for a length-1 slice of that value (NumPy's)
    local edge = {}
    for _, k in ipairs({ "prepend", "append" }) do
      local v = opts[k]
      if v ~= nil and not is_mat(v) and type(v) ~= "number" then
        argerror(2, "diff", "option '%s' must be a mat or a number, got %s", k, type(v))
      end
      if type(v) == "number" then
        local d = x:dims()
        d[axis] = 1
        v = gm.full(d, v, { dtype = gm.result_type(x, v), cuda_enabled = x:cuda_enabled() })
      end
      edge[k] = v
    end
    if edge.prepend or edge.append then
      local parts = {}
      if edge.prepend then parts[#parts + 1] = edge.prepend end
      parts[#parts + 1] = x
      if edge.append then parts[#parts + 1] = edge.append end
      x = gm.concat(parts, { axis = axis })
    end
    for _ = 1, n do
      local len = x:dim(axis)
      if len <= 1 then return x:narrow(axis, 1, 0):contiguous() end
      x = x:narrow(axis, 2, len - 1) - x:narrow(axis, 1, len - 1)
    end
    return x
  end

  require("gpumat.sets")(gm, core, methods, { options = options, check_mat = check_mat, axis_of = axis_of,
    float_stats = float_stats })

  for _, name in ipairs({ "argsort", "topk", "kthvalue", "mode", "cummax", "cummin", "nanquantile", "searchsorted",
    "isin", "unique_values", "unique_counts", "unique_inverse", "unique_all" }) do
    methods[name] = gm[name]
  end
  for _, name in ipairs({ "flip", "sort", "median", "quantile", "cumulative_sum", "cumulative_prod", "cumulative_logsumexp", "cumsum", "cumprod", "diff" }) do
    methods[name] = gm[name]
  end
end
