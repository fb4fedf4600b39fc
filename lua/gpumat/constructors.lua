-- Constructors as Torch7 and NumPy users expect them: gm.zeros, ones, full,
-- eye, range, linspace, rand, randn, zeros_like, ones_like, and m:as(ctype).
-- Each makes its mat with gm.mat (the options are gm.mat's, less the ones
-- that set the contents) and fills it with the ops that run where the mat
-- lives (initial element, random fills with the Philox streams, so the
-- device gives the host's values); range and linspace write their values
-- through core._fill_sequence (src/lua/l_constructors.c).  Argument
-- counts: init.lua wraps these with argcheck.strict (their parameter
-- lists); zeros, ones, rand and randn take several integers and check
-- their own.
local argerror = require("gpumat.argcheck").argerror

-- gm.mat's options that these constructors accept (the contents are theirs).
local mat_options = { ctype = true, dtype = true, cuda_enabled = true, synchronization = true, displacement = true,
  max_size = true }

return function(gm, core, methods)
  local mat_mt = getmetatable(core.mat(0))
  local function is_mat(x) return getmetatable(x) == mat_mt end

  -- a copy of opts, which may hold gm.mat's options and the extra ones
  local function check_opts(opts, n, fname, extra)
    if opts == nil then return {} end
    if type(opts) ~= "table" then
      argerror(n, fname, "options table expected, got %s", is_mat(opts) and "gpumat.mat" or type(opts))
    end
    local copy = {}
    for k, v in pairs(opts) do
      if not mat_options[k] and not (extra and extra[k]) then argerror(n, fname, "unknown option '%s'", tostring(k)) end
      copy[k] = v
    end
    return copy
  end

  local function check_dim(d, n, fname)
    if math.type(d) ~= "integer" or d < 0 then
      argerror(n, fname, "dimensions must be non-negative integers, got %s", tostring(d))
    end
  end

  local function check_dims(dims, n, fname)
    if type(dims) == "table" and getmetatable(dims) == nil then
      for i = 1, #dims do
        local d = dims[i]
        if math.type(d) ~= "integer" or d < 0 then check_dim(d, n, fname) end
      end
      return dims
    end
    check_dim(dims, n, fname)
    return dims
  end

  -- gm.mat(dims, opts) with errors naming fname and its options argument.
  local function make(fname, dims, opts, opts_arg)
    local ok, m = pcall(gm.mat, dims, opts)
    if not ok then
      local msg = tostring(m):gsub("#2 to 'mat'", "#" .. opts_arg .. " to '" .. fname .. "'")
        :gsub("to 'mat'", "to '" .. fname .. "'")
      error(msg, 0)
    end
    return m
  end

  -- (dims, opts) or several integers then opts: gm.zeros(2, 3, {ctype = "float"}).
  local function dims_and_opts(fname, ...)
    local n = select("#", ...)
    local first = ...
    if math.type(first) == "integer" and n >= 2 and math.type((select(2, ...))) == "integer" then
      local dims = {}
      for i = 1, n do
        local v = select(i, ...)
        if math.type(v) ~= "integer" then
          if i < n then argerror(i, fname, "dimensions must be non-negative integers, got %s", tostring(v)) end
          return dims, check_opts(v, i, fname), i
        end
        check_dim(v, i, fname)
        dims[i] = v
      end
      return dims, {}, n + 1
    end
    if n > 2 then argerror(3, fname, "no value expected") end
    if first == nil then argerror(1, fname, "dimensions expected, got no value") end
    return check_dims(first, 1, fname), check_opts((select(2, ...)), 2, fname), 2
  end

  -- Without options (the usual call in a loop: gm.zeros({n, m})) core._full
  -- makes the mat: the general path below (a copy of the options, several
  -- integers, gm.mat in a pcall) cost three times gm.mat's own work.
  local full_core = core._full
  local function filled(fname, value)
    return function(...)
      local first = ...
      if select("#", ...) == 1 and (math.type(first) == "integer" or type(first) == "table" and getmetatable(first) == nil) then
        return full_core(check_dims(first, 1, fname), value, fname)
      end
      local dims, opts, opts_arg = dims_and_opts(fname, ...)
      opts.initial_element = value
      return make(fname, dims, opts, opts_arg)
    end
  end
  gm.zeros = filled("zeros", 0)
  gm.ones = filled("ones", 1)

  -- a gm.complex value: the initial element is its real part (mats'
  -- initial elements are numbers), a fill then writes both parts; without
  -- a dtype the mat is complex128 (NumPy's full with a Python complex)
  local function make_filled(fname, dims, value, opts, n)
    if not gm.iscomplex(value) then
      opts.initial_element = value
      return make(fname, dims, opts, n)
    end
    if opts.dtype == nil and opts.ctype == nil then opts.dtype = "complex128" end
    opts.initial_element = value.re
    local m = make(fname, dims, opts, n)
    if value.im ~= 0 then gm.fill_(value, m) end
    return m
  end

  function gm.full(dims, value, opts)
    check_dims(dims, 1, "full")
    if opts == nil and type(value) == "number" then return full_core(dims, value, "full") end
    if type(value) == "boolean" then value = value and 1 or 0 end -- a bool mat's true / false
    if type(value) ~= "number" and not gm.iscomplex(value) then
      argerror(2, "full", "value must be a number or a boolean, got %s", type(value))
    end
    opts = check_opts(opts, 3, "full")
    return make_filled("full", dims, value, opts, 3)
  end

  -- gm.eye(n, m, {k, ...}): ones on diagonal k (k > 0 above the main one)
  function gm.eye(n, m, opts)
    if type(m) == "table" and opts == nil then m, opts = nil, m end
    check_dim(n, 1, "eye")
    if m ~= nil then check_dim(m, 2, "eye") end
    m = m or n
    local k = type(opts) == "table" and opts.k or 0
    if math.type(k) ~= "integer" then argerror(3, "eye", "option 'k' must be an integer, got %s", tostring(k)) end
    opts = check_opts(opts, 3, "eye", { k = true })
    opts.k, opts.initial_element = nil, 0
    local e = make("eye", { n, m }, opts, 3)
    -- diagonal k as one stepped view of the flat storage (one assignment:
    -- a set per element cost 15 us of gm.eye(100)'s 16)
    local first, last = math.max(1, 1 - k), math.min(n, m - k)
    if last >= first and e:is_contiguous() then
      local at = (first - 1) * m + first + k
      e:reshape(n * m)[{ { at, at + (last - first) * (m + 1), m + 1 } }] = 1
    else -- (a strided mat: the specs' gm.mat makes views)
      for i = first, last do e:set(i, i + k, 1) end
    end
    return e
  end

  -- The number of values of `for v = first, last, step`: Lua counts
  -- integer loops exactly and float loops by adding step until v passes
  -- last; the float count is found the same way (bounded by an estimate,
  -- so a huge range errs instead of looping for ever).
  local MAX_RANGE = 1 << 40
  local function range_count(first, last, step)
    if math.type(first) == "integer" and math.type(last) == "integer" and math.type(step) == "integer" then
      if (step > 0 and first > last) or (step < 0 and first < last) then return 0, false end
      return (last - first) // step + 1, false
    end
    local est = (last - first) / step
    if est ~= est or est >= MAX_RANGE then argerror(2, "range", "too many values (about %.3g)", est) end
    if est < 0 then return 0, true end
    local count, v = 0, first + 0.0
    while (step > 0 and v <= last) or (step < 0 and v >= last) do
      count = count + 1
      v = v + step
    end
    return count, true
  end

  -- values first + k * step into m: exactly in integers for an integer
  -- mat and integer bounds, else in double (converted as astype does)
  local function fill_sequence(m, first, step, accumulate)
    if math.type(first) == "integer" and math.type(step) == "integer" and gm.isdtype(m:dtype(), "integral") then
      core._fill_int_sequence(m, first, step)
    else
      core._fill_sequence(m, first, step, accumulate, nil)
    end
  end

  function gm.range(first, last, step, opts)
    if type(step) == "table" and opts == nil then step, opts = nil, step end
    step = step == nil and 1 or step
    for i, v in ipairs({ first, last, step }) do
      if type(v) ~= "number" or v ~= v then argerror(i, "range", "number expected, got %s", tostring(v)) end
    end
    if step == 0 then argerror(3, "range", "step must not be zero") end
    opts = check_opts(opts, 4, "range")
    local count, accumulate = range_count(first, last, step)
    if count > MAX_RANGE then argerror(2, "range", "too many values (%d)", count) end
    local m = make("range", count, opts, 4)
    fill_sequence(m, first, step, accumulate)
    return m
  end

  -- gm.arange(stop), arange(start, stop), arange(start, stop, step), each
  -- with an optional trailing {dtype, ...}: the standard's half-open
  -- range (ceil((stop - start) / step) values start + k * step); int64
  -- when every bound is a Lua integer, else the default float
  function gm.arange(a, b, c, opts)
    local args = {}
    for i, v in ipairs { a, b, c, opts } do
      if type(v) == "table" then opts = v break end
      if type(v) ~= "number" or v ~= v then argerror(i, "arange", "number expected, got %s", tostring(v)) end
      args[i] = v
      if i == 4 then argerror(4, "arange", "options table expected, got number") end
    end
    if #args == 0 then argerror(1, "arange", "number expected, got no value") end
    if #args < 4 and opts == args[#args + 1] then opts = nil end
    local start, stop, step = #args == 1 and 0 or args[1], #args == 1 and args[1] or args[2], args[3] or 1
    if step == 0 then argerror(3, "arange", "step must not be zero") end
    local ints = math.type(start) == "integer" and math.type(stop) == "integer" and math.type(step) == "integer"
    local est = (stop - start + 0.0) / step
    if est >= MAX_RANGE then argerror(2, "arange", "too many values (about %.3g)", est) end
    local count = math.max(0, math.ceil(est))
    if ints and (stop >= start) == (stop - start >= 0) then
      count = step > 0 and math.max(0, (stop - start + step - 1) // step) or math.max(0, (start - stop - step - 1) // -step)
    end
    opts = check_opts(opts, #args + 1, "arange")
    if opts.dtype == nil and opts.ctype == nil then opts.dtype = ints and "int64" or gm.default_ctype end
    local m = make("arange", count, opts, #args + 1)
    fill_sequence(m, start, step, false)
    return m
  end

  function gm.linspace(first, last, n, opts)
    for i, v in ipairs({ first, last }) do
      if type(v) ~= "number" then argerror(i, "linspace", "number expected, got %s", tostring(v)) end
    end
    if n == nil then n = 100 end -- numpy's default
    check_dim(n, 3, "linspace")
    opts = check_opts(opts, 4, "linspace")
    local m = make("linspace", n, opts, 4)
    local step = n > 1 and (last - first) / (n - 1) or 0
    core._fill_sequence(m, first, step, false, n > 1 and last or nil)
    return m
  end

  local function random(fname, fill)
    return function(...)
      local dims, opts, opts_arg = dims_and_opts(fname, ...)
      local m = make(fname, dims, opts, opts_arg)
      return fill(m)
    end
  end
  gm.rand = random("rand", function(m) return m:uniform_random_() end)
  gm.randn = random("randn", function(m) return m:gaussian_random_() end)

  -- a mat of x's dims, dtype and device, the options (dtype, ...)
  -- overriding them, filled with value
  local full_like_core = core._full_like
  local function make_like(fname, x, value, opts, n)
    if opts == nil and type(value) == "number" and is_mat(x) then return full_like_core(x, value, fname) end
    if not is_mat(x) then argerror(1, fname, "gpumat.mat expected, got %s", type(x)) end
    opts = check_opts(opts, n, fname)
    if opts.dtype == nil and opts.ctype == nil then opts.dtype = x:dtype() end
    if opts.cuda_enabled == nil then opts.cuda_enabled = x:cuda_enabled() end
    if type(value) == "boolean" then value = value and 1 or 0 end
    if type(value) ~= "number" and not gm.iscomplex(value) then
      argerror(2, fname, "value must be a number or a boolean, got %s", type(value))
    end
    return make_filled(fname, x:dims(), value, opts, n)
  end
  function gm.zeros_like(x, opts) return make_like("zeros_like", x, 0, opts, 2) end
  function gm.ones_like(x, opts) return make_like("ones_like", x, 1, opts, 2) end
  -- gpumat's mats are always initialized: empty_like and empty give zeros
  function gm.empty_like(x, opts) return make_like("empty_like", x, 0, opts, 2) end
  function gm.full_like(x, value, opts) return make_like("full_like", x, value, opts, 3) end
  gm.empty = filled("empty", 0)

  -- gm.meshgrid(x1, x2, ..., {indexing = "xy" | "ij"}): a list of mats,
  -- one per 1-d input, each input repeated along the other inputs' axes
  -- ("xy", the default, swaps the first two axes as NumPy)
  function gm.meshgrid(...)
    local fname, xs = "meshgrid", { ... }
    local opts = {}
    if type(xs[#xs]) == "table" and not is_mat(xs[#xs]) then opts = table.remove(xs) end
    for k in pairs(opts) do
      if k ~= "indexing" then argerror(#xs + 1, fname, "unknown option '%s'", tostring(k)) end
    end
    local ij = opts.indexing == "ij"
    if not ij and opts.indexing ~= nil and opts.indexing ~= "xy" then
      argerror(#xs + 1, fname, "indexing must be \"xy\" or \"ij\", got %s", tostring(opts.indexing))
    end
    local dims, pos = {}, {}
    for i, x in ipairs(xs) do
      if not is_mat(x) or #x:dims() ~= 1 then argerror(i, fname, "a 1-d mat expected") end
      pos[i] = (not ij and #xs >= 2 and i <= 2) and 3 - i or i
      dims[pos[i]] = x:size()
    end
    local out = {}
    for i, x in ipairs(xs) do
      local shape = {}
      for k = 1, #xs do shape[k] = k == pos[i] and dims[k] or 1 end
      out[i] = x:contiguous():reshape(shape):expand(dims):copy()
    end
    return out
  end

  -- the leaves of a nested Lua list with booleans as 0/1, and whether
  -- every leaf was a boolean / an integer, whether some leaf is complex
  local function leaves(t)
    local all_bool, all_int, any, some_complex = true, true, false, false
    local function rec(v)
      if gm.iscomplex(v) then
        any, all_bool, all_int, some_complex = true, false, false, true
        return v
      end
      if type(v) == "table" and not is_mat(v) then
        local c = {}
        for i = 1, #v do c[i] = rec(v[i]) end
        return c
      end
      any = true
      if type(v) == "boolean" then all_int = false return v and 1 or 0 end
      all_bool = false
      if math.type(v) ~= "integer" then all_int = false end
      return v
    end
    local c = rec(t)
    return c, all_bool and any, all_int and any, some_complex
  end

  -- gm.asarray(obj, {dtype, copy, ...}): a mat from a mat (itself unless a
  -- dtype conversion or copy = true asks for a new one), a Lua number or
  -- boolean (a 0-d mat) or a nested Lua list (dtype bool when every
  -- element is a boolean, int64 when every one is an integer, else the
  -- default float)
  function gm.asarray(obj, opts)
    local fname = "asarray"
    local copy
    if type(opts) == "table" then copy = opts.copy end
    opts = check_opts(opts, 2, fname, { copy = true })
    opts.copy = nil
    local dt = opts.dtype or opts.ctype
    if is_mat(obj) then
      local conv = dt ~= nil and gm.result_type(dt) ~= obj:dtype()
      if conv and copy == false then argerror(2, fname, "copy = false, but converting to %s copies", dt) end
      if conv then return obj:astype(dt) end
      return copy and obj:copy() or obj
    end
    if copy == false then argerror(2, fname, "copy = false needs a mat") end
    local infer
    if type(obj) == "boolean" or type(obj) == "number" or gm.iscomplex(obj) then
      infer = type(obj) == "boolean" and "bool" or math.type(obj) == "integer" and "int64" or
          gm.iscomplex(obj) and "complex128" or gm.default_ctype
      if dt == nil and opts.ctype == nil then opts.dtype = infer end
      return gm.full({}, obj, opts)
    end
    if type(obj) ~= "table" then argerror(1, fname, "a mat, number, boolean or list expected, got %s", type(obj)) end
    local t, all_bool, all_int, some_complex = leaves(obj)
    if dt == nil then
      opts.dtype = all_bool and "bool" or all_int and "int64" or some_complex and "complex128" or gm.default_ctype
    end
    local ok, m = pcall(gm.array_to_mat, t, opts)
    if not ok then error((tostring(m):gsub("to 'array_to_mat'", "to '" .. fname .. "'")), 0) end
    return m
  end

  -- m:as(dtype) / gm.astype(m, dtype): a new mat of that element type with
  -- m's dims and values converted as the array standard's astype
  -- (core.astype: integers wrap, float -> integer saturates, NaN -> 0).
  local function astype(fname)
    return function(m, ctype)
      if not is_mat(m) then argerror(1, fname, "gpumat.mat expected, got %s", type(m)) end
      if type(ctype) ~= "string" then argerror(2, fname, "ctype name expected, got %s", type(ctype)) end
      local ok, r = pcall(core.astype, m, ctype)
      if not ok then error((tostring(r):gsub("to 'astype'", "to '" .. fname .. "'")), 0) end
      return r
    end
  end
  methods.as = astype("as")
  gm.astype = astype("astype")
  methods.astype = gm.astype
end
