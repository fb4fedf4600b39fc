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

  local function check_opts(opts, n, fname)
    if opts == nil then return {} end
    if type(opts) ~= "table" then
      argerror(n, fname, "options table expected, got %s", is_mat(opts) and "gpumat.mat" or type(opts))
    end
    local copy = {}
    for k, v in pairs(opts) do
      if not mat_options[k] then argerror(n, fname, "unknown option '%s'", tostring(k)) end
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
      for i = 1, #dims do check_dim(dims[i], n, fname) end
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

  local function filled(fname, value)
    return function(...)
      local dims, opts, opts_arg = dims_and_opts(fname, ...)
      opts.initial_element = value
      return make(fname, dims, opts, opts_arg)
    end
  end
  gm.zeros = filled("zeros", 0)
  gm.ones = filled("ones", 1)

  function gm.full(dims, value, opts)
    check_dims(dims, 1, "full")
    if type(value) == "boolean" then value = value and 1 or 0 end -- a bool mat's true / false
    if type(value) ~= "number" then argerror(2, "full", "value must be a number or a boolean, got %s", type(value)) end
    opts = check_opts(opts, 3, "full")
    opts.initial_element = value
    return make("full", dims, opts, 3)
  end

  function gm.eye(n, m, opts)
    if type(m) == "table" and opts == nil then m, opts = nil, m end
    check_dim(n, 1, "eye")
    if m ~= nil then check_dim(m, 2, "eye") end
    m = m or n
    opts = check_opts(opts, 3, "eye")
    opts.initial_element = 0
    local e = make("eye", { n, m }, opts, 3)
    for i = 1, math.min(n, m) do e:set(i, i, 1) end
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
    core._fill_sequence(m, first, step, accumulate, nil)
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

  local function like(fname, value)
    return function(m)
      if not is_mat(m) then argerror(1, fname, "gpumat.mat expected, got %s", type(m)) end
      return gm.mat(m:dims(), { ctype = m:ctype(), cuda_enabled = m:cuda_enabled(), initial_element = value })
    end
  end
  gm.zeros_like = like("zeros_like", 0)
  gm.ones_like = like("ones_like", 1)

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
