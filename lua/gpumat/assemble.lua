-- Assembling (MGL-MAT §9), mappings (§14) and mm_mul (§13): Lua over the
-- C primitives (stack_, m_mul, transpose, shaping), so they run wherever
-- those run (host or device).
return function(gm, core, methods)
  local mat_mt = getmetatable(core.mat(0))

  local function is_mat(x) return getmetatable(x) == mat_mt and not core.is_freed(x) end

  local argcheck = require "gpumat.argcheck"
  local argerror, check_callable = argcheck.argerror, argcheck.check_callable

  local function describe(x)
    if getmetatable(x) == mat_mt then return "a freed mat" end
    return type(x)
  end

  local function check_boolean(v, n, fname, what)
    if v ~= nil and type(v) ~= "boolean" then
      argerror(n, fname, "%s must be a boolean, got %s", what, type(v))
    end
    return v or false
  end

  local function check_mat(x, n, fname)
    if getmetatable(x) ~= mat_mt then argerror(n, fname, "gpumat.mat expected, got %s", type(x)) end
    if core.is_freed(x) then argerror(n, fname, "attempt to use a freed mat") end
    return x
  end

  local function check_options(opts, n, fname, allowed)
    if opts == nil then return {} end
    if type(opts) ~= "table" then argerror(n, fname, "options table expected, got %s", type(opts)) end
    for k in pairs(opts) do
      if not allowed[k] then argerror(n, fname, "unknown option '%s'", tostring(k)) end
    end
    return opts
  end

  local function check_count(v, n, fname, what, positive)
    if math.type(v) ~= "integer" then argerror(n, fname, "%s must be an integer, got %s", what, type(v)) end
    if v < (positive and 1 or 0) then
      argerror(n, fname, "%s must be %s, got %d", what, positive and "positive" or "non-negative", v)
    end
    return v
  end

  local MAX_RANK = 8 -- GM_MAX_RANK (include/gpumat.h)

  -- dims as a list and their product; errors name argument n
  local function check_dims(dims, n, fname)
    if math.type(dims) == "integer" then dims = { dims } end
    if type(dims) ~= "table" then
      argerror(n, fname, "dimensions must be an integer or a list, got %s", type(dims))
    end
    if #dims > MAX_RANK then argerror(n, fname, "rank %d exceeds %d", #dims, MAX_RANK) end
    local size, list = 1, {}
    for i = 1, #dims do
      local d = check_count(dims[i], n, fname, "dimension " .. i)
      if d > 0 and size > math.maxinteger // d then argerror(n, fname, "dimensions are too large") end
      size = size * d
      list[i] = d
    end
    return list, size
  end

  -- gm.stack(axis, mats, {ctype}): a new mat; ctype defaults to the inputs'
  function gm.stack(axis, mats, opts)
    local fname = "stack"
    if type(mats) ~= "table" then argerror(2, fname, "table expected, got %s", type(mats)) end
    if #mats == 0 then argerror(2, fname, "mats must not be empty") end
    opts = check_options(opts, 3, fname, { ctype = true })
    for i, m in ipairs(mats) do
      if not is_mat(m) then argerror(2, fname, "mats[%d] must be a mat, got %s", i, describe(m)) end
    end
    if opts.ctype ~= nil and opts.ctype ~= "float" and opts.ctype ~= "double" then
      argerror(3, fname, "option 'ctype' must be \"float\" or \"double\", got %s", tostring(opts.ctype))
    end
    local first = mats[1]
    local rank = #first:dims()
    if math.type(axis) ~= "integer" then argerror(1, fname, "axis must be an integer, got %s", type(axis)) end
    if axis < 1 or axis > rank then argerror(1, fname, "axis %d is out of range 1..%d", axis, rank) end
    local dims, total = first:dims(), 0
    for i, m in ipairs(mats) do
      if m:ctype() ~= first:ctype() then
        argerror(2, fname, "mixed ctypes %s and %s (mats[%d])", first:ctype(), m:ctype(), i)
      end
      if #m:dims() ~= rank then argerror(2, fname, "mats[%d] has rank %d, mats[1] has %d", i, #m:dims(), rank) end
      for d = 1, rank do
        if d ~= axis and m:dim(d) ~= dims[d] then
          argerror(2, fname, "mats[%d] has dimension %d on axis %d, mats[1] has %d", i, m:dim(d), d, dims[d])
        end
      end
      total = total + m:dim(axis)
    end
    dims[axis] = total
    local ctype = opts.ctype or first:ctype()
    local out = gm.mat(dims, { ctype = ctype })
    if ctype ~= first:ctype() then
      -- a ctype conversion goes through the host (nested tables)
      local conv = {}
      for i, m in ipairs(mats) do conv[i] = gm.array_to_mat(m:to_table(), { ctype = ctype }) end
      mats = conv
    end
    return core.stack_(axis, mats, out)
  end

  -- gm.map_concat(fn, mats, mat, {key, pass_raw}): fn(m, mat) with mat
  -- reshaped and displaced over consecutive pieces of its visible part
  function gm.map_concat(fn, mats, mat, opts)
    local fname = "map_concat"
    check_callable(fn, 1, fname)
    if type(mats) ~= "table" then argerror(2, fname, "table expected, got %s", type(mats)) end
    check_mat(mat, 3, fname)
    opts = check_options(opts, 4, fname, { key = true, pass_raw = true })
    local key = opts.key
    if key ~= nil then check_callable(key, 4, fname) end
    local pass_raw = check_boolean(opts.pass_raw, 4, fname, "option 'pass_raw'")
    local keyed, need = {}, 0
    for i = 1, #mats do
      local m0 = mats[i]
      if key then m0 = key(m0) end
      if not is_mat(m0) then
        argerror(2, fname, "mats[%d]%s must be a mat, got %s", i, key and " (after key)" or "", describe(m0))
      end
      keyed[i] = m0
      need = need + m0:size()
    end
    if need > mat:size() then argerror(3, fname, "mats need %d elements, mat has %d", need, mat:size()) end
    local start = mat:displacement()
    gm.with_shape_and_displacement(mat, nil, nil, function()
      for i, m0 in ipairs(keyed) do
        core.reshape_and_displace_(mat, m0:dims(), start)
        if pass_raw then fn(mats[i], mat) else fn(m0, mat) end
        start = start + m0:size()
      end
    end)
    return mat
  end

  -- gm.map_displacements(fn, mat, dims, {displacement_start, displacement_step}):
  -- fn(mat) with mat reshaped to dims at successive displacements (relative
  -- to mat's), while the window stays inside mat's visible part
  function gm.map_displacements(fn, mat, dims, opts)
    local fname = "map_displacements"
    check_callable(fn, 1, fname)
    check_mat(mat, 2, fname)
    local wdims, wsize = check_dims(dims, 3, fname)
    opts = check_options(opts, 4, fname, { displacement_start = true, displacement_step = true })
    local start = check_count(opts.displacement_start or 0, 4, fname, "displacement_start")
    local step = check_count(opts.displacement_step or wsize, 4, fname, "displacement_step", true)
    local d0, size = mat:displacement(), mat:size()
    if wsize > size then return mat end
    local last = size - wsize -- the last displacement (relative) that fits
    gm.with_shape_and_displacement(mat, nil, nil, function()
      local d = start
      while d <= last do
        core.reshape_and_displace_(mat, wdims, d0 + d)
        fn(mat)
        if step > last - d then break end -- (no overflow for huge steps)
        d = d + step
      end
    end)
    return mat
  end

  -- gm.map_mats_into(result, fn, m1, ...): result[i] = fn(m1[i], ...)
  -- (row-major, visible elements; runs on the host)
  function gm.map_mats_into(result, fn, ...)
    local fname = "map_mats_into"
    check_mat(result, 1, fname)
    check_callable(fn, 2, fname)
    local n, mats = result:size(), table.pack(...)
    local flat = {}
    for i = 1, mats.n do
      local m = check_mat(mats[i], i + 2, fname)
      if m:size() ~= n then argerror(i + 2, fname, "size %d differs from the result's %d", m:size(), n) end
      flat[i] = m:reshape({ n }):to_table()
    end
    local out, args = {}, {}
    for k = 1, n do
      for i = 1, mats.n do args[i] = flat[i][k] end
      local v = fn(table.unpack(args, 1, mats.n))
      if type(v) ~= "number" then argerror(2, fname, "fn returned %s for element %d, number expected", type(v), k) end
      out[k] = v
    end
    result:reshape({ n }):replace_(out)
    return result
  end

  -- gm.mm_mul(a, b, ...): a * b * ...; an argument may be {m, transpose = true}
  function gm.mm_mul(...)
    local fname = "mm_mul"
    local args = table.pack(...)
    if args.n == 0 then argerror(1, fname, "gpumat.mat expected, got no value") end
    local ms, ts = {}, {}
    for i = 1, args.n do
      local a = args[i]
      if type(a) == "table" and getmetatable(a) == nil then
        for k in pairs(a) do
          if k ~= 1 and k ~= "transpose" then argerror(i, fname, "unknown field '%s'", tostring(k)) end
        end
        ms[i] = check_mat(a[1], i, fname)
        ts[i] = check_boolean(a.transpose, i, fname, "field 'transpose'")
      else
        ms[i], ts[i] = check_mat(a, i, fname), false
      end
      if #ms[i]:dims() ~= 2 then argerror(i, fname, "matrix must be 2-dimensional, has rank %d", #ms[i]:dims()) end
      if ms[i]:ctype() ~= ms[1]:ctype() then argerror(i, fname, "mixed ctypes %s and %s", ms[1]:ctype(), ms[i]:ctype()) end
    end
    local function rows(i) return ms[i]:dim(ts[i] and 2 or 1) end
    local function cols(i) return ms[i]:dim(ts[i] and 1 or 2) end
    for i = 2, args.n do
      if cols(i - 1) ~= rows(i) then argerror(i, fname, "inner dimensions differ: %d vs %d", cols(i - 1), rows(i)) end
    end
    if args.n == 1 then return ts[1] and core.transpose(ms[1]) or ms[1] end
    local c = core.m_mul(ms[1], ms[2], { transpose_a = ts[1], transpose_b = ts[2] })
    for i = 3, args.n do c = core.m_mul(c, ms[i], { transpose_b = ts[i] }) end
    return c
  end
end
