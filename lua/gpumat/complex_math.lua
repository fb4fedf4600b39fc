-- The functions of complex mats that are compositions rather than op
-- table rows (docs/API.md "Complex mats"): real, imag and abs (real
-- results: the parts moved out by core._complex_part, a strided move of
-- the part type that every device runs, and abs as hypot of the parts, so
-- large parts do not overflow), sign (z/|z|, 0 at 0), pow and ^ (NumPy's
-- npy_cpow: binary powering for small integer exponents, exp(b log a)
-- otherwise, 0^0 = 1), expm1/log1p/log2/log10 (NumPy's formulas on the
-- parts), sum/mean (of the parts), prod (pairwise products along the
-- axis), cumulative_sum (of the parts) and cumulative_prod (a doubling
-- scan of products).  Each wraps the function of the same name, which
-- keeps every other ctype; loaded after the other areas so the wrapped
-- ones exist.  Everything runs where the mat lives, through the
-- elementwise ops, so host, emulated device and CUDA agree.
local argcheck = require "gpumat.argcheck"
local argerror = argcheck.argerror

return function(gm, core, methods)
  local mat_mt = getmetatable(core.mat(0))
  local function is_mat(x) return getmetatable(x) == mat_mt end
  -- the parts' ctype of each complex ctype
  local PART = { complex64 = "float", complex128 = "double" }
  local function cx(x) return is_mat(x) and PART[x:ctype()] ~= nil end

  local function new(dims, ct, like, init)
    return gm.mat(dims, { ctype = ct, cuda_enabled = like:cuda_enabled(), initial_element = init })
  end

  -- part k (0 real, 1 imaginary) of complex z as a new mat
  local function part(z, k)
    local r = new(z:dims(), PART[z:ctype()], z, false)
    core._complex_part(z, k, r, false)
    return r
  end

  -- the complex mat of ctype ct with parts re and im (real mats of one shape)
  local function from_parts(re, im, ct, out)
    local z = out or new(re:dims(), ct, re, 0)
    local pt = PART[z:ctype()]
    core._complex_part(z, 0, re:ctype() == pt and re or re:as(pt), true)
    core._complex_part(z, 1, im:ctype() == pt and im or im:as(pt), true)
    return z
  end

  -- wraps gm[name] and methods[name]: f(orig, ...) for complex first
  -- arguments (or when takes(...) says so), orig otherwise.  Each
  -- wrapper declares the C function's argument count (argcheck.strict).
  local function wrap(name, nargs, f, takes)
    takes = takes or cx
    for _, t in ipairs { gm, methods } do
      local orig = t[name]
      if orig then
        if nargs == 2 then
          t[name] = function(a, b) if takes(a, b) then return f(orig, a, b) end return orig(a, b) end
        else
          t[name] = function(a, b, c) if takes(a, b, c) then return f(orig, a, b, c) end return orig(a, b, c) end
        end
      end
    end
  end

  local function no_opts(fn, opts)
    if opts ~= nil then argerror(2, fn, "options are not taken for complex mats") end
  end

  -- ---- real, imag, abs, sign ----
  local function check_any(fn, x)
    if not is_mat(x) then argerror(1, fn, "gpumat.mat expected, got %s", type(x)) end
  end
  function gm.real(x)
    check_any("real", x)
    if cx(x) then return part(x, 0) end
    return x:copy()
  end
  function gm.imag(x)
    check_any("imag", x)
    if cx(x) then return part(x, 1) end
    return gm.zeros(x:dims(), { ctype = x:ctype(), cuda_enabled = x:cuda_enabled() })
  end
  methods.real, methods.imag = gm.real, gm.imag

  local function cabs(x) return gm.hypot(part(x, 0), part(x, 1)) end
  wrap("abs", 2, function(_, x, opts)
    no_opts("abs", opts)
    return cabs(x)
  end)
  wrap("sign", 2, function(_, x, opts)
    no_opts("sign", opts)
    local a = cabs(x)
    return gm.where(gm.eq(a, 0), 0, x / a)
  end)

  -- ---- expm1, log1p, log2, log10 (NumPy's nc_* formulas) ----
  wrap("expm1", 2, function(_, x, opts)
    no_opts("expm1", opts)
    local re, im = part(x, 0), part(x, 1)
    local s = gm.sin(gm.cmul(im, 0.5))
    local r = gm.cmul(gm.expm1(re), gm.cos(im)) - gm.cmul(gm.cmul(s, s), 2)
    return from_parts(r, gm.cmul(gm.exp(re), gm.sin(im)), x:ctype())
  end)
  wrap("log1p", 2, function(_, x, opts)
    no_opts("log1p", opts)
    local re, im = part(x, 0), part(x, 1)
    local re1 = re + 1
    return from_parts(gm.log(gm.hypot(re1, im)), gm.atan2(im, re1), x:ctype())
  end)
  -- log scaled part by part (a complex scaling would turn log(0)'s
  -- -inf + 0i into -inf + NaN i)
  for name, scale in pairs { log2 = 1 / math.log(2), log10 = 1 / math.log(10) } do
    wrap(name, 2, function(_, x, opts)
      no_opts(name, opts)
      local l = gm.log(x)
      return from_parts(gm.cmul(part(l, 0), scale), gm.cmul(part(l, 1), scale), x:ctype())
    end)
  end

  -- ---- pow ----
  local function involves_complex(a, b)
    return cx(a) or cx(b) or ((is_mat(a) or is_mat(b)) and (gm.iscomplex(a) or gm.iscomplex(b)))
  end
  local function as_complex(v, ct, like)
    if is_mat(v) then return v:ctype() == ct and v or v:as(ct) end
    return gm.full(like:dims(), v, { ctype = ct, cuda_enabled = like:cuda_enabled() })
  end
  -- a^n for an integer n, 0 < |n| < 100: npy_cpow's binary powering
  local function int_pow(a, n)
    local r, p, m = nil, a, math.abs(n)
    while true do
      if m & 1 == 1 then r = r and gm.cmul(r, p) or p end
      m = m >> 1
      if m == 0 then break end
      p = gm.cmul(p, p)
    end
    if n < 0 then
      -- 0 ^ -n is NaN (npy_cpow: the complex zeros' negative powers are ill-defined)
      local nan = gm.full(a:dims(), gm.complex(0 / 0, 0 / 0), { ctype = a:ctype(), cuda_enabled = a:cuda_enabled() })
      r = gm.where(gm.eq(a, 0), nan, gm.reciprocal(r))
    end
    return r == a and a:copy() or r
  end
  local function cpow(a, b)
    local ct = gm.result_type(a, b)
    local like = is_mat(a) and a or b
    local A = as_complex(a, ct, like)
    if type(b) == "number" and b == math.floor(b) and math.abs(b) < 100 then
      if b == 0 then return gm.full(A:dims(), 1, { ctype = ct, cuda_enabled = A:cuda_enabled() }) end
      return int_pow(A, math.tointeger(b))
    end
    local B = as_complex(b, ct, like)
    local r = gm.exp(gm.cmul(B, gm.log(A)))
    -- a = 0: 0 for a real positive b, NaN otherwise; b = 0: 1 (0^0 too)
    local br, bi = part(B, 0), part(B, 1)
    local zero_ok = gm.logical_and(gm.gt(br, 0), gm.eq(bi, 0))
    local nan = gm.full(r:dims(), gm.complex(0 / 0, 0 / 0), { ctype = ct, cuda_enabled = r:cuda_enabled() })
    r = gm.where(gm.eq(A, 0), gm.where(zero_ok, 0, nan), r)
    return gm.where(gm.eq(B, 0), 1, r)
  end
  wrap("pow", 3, function(_, a, b, opts)
    if opts ~= nil then argerror(3, "pow", "options are not taken for complex operands") end
    return cpow(a, b)
  end, involves_complex)
  local mat_pow = mat_mt.__pow
  mat_mt.__pow = function(a, b)
    if involves_complex(a, b) then return cpow(a, b) end
    return mat_pow(a, b)
  end

  -- ---- reductions ----
  -- gm.sum(m, axis, opts) or gm.sum(m, {axis = k, ...}): axis, keepdims,
  -- out and a complex dtype/ctype
  local function reduce_args(fn, x, axis, opts)
    if type(axis) == "table" and opts == nil then axis, opts = axis.axis, axis end
    opts = opts or {}
    local want = opts.dtype or opts.ctype
    if want ~= nil then
      if not gm.isdtype(want, "complex floating") then
        argerror(3, fn, "dtype %s: the %s of a %s mat is complex", tostring(want), fn, x:dtype())
      end
      x = x:as(want)
    end
    if opts.out ~= nil and axis == nil then argerror(3, fn, "keepdims and out need an axis (argument #2)") end
    return x, axis, opts
  end
  local function finish(z, axis, opts)
    if axis == nil then return z:contiguous():view(1)[1] end
    if opts.out then
      gm.add(z, 0, { out = opts.out })
      return opts.out
    end
    return z
  end
  -- sum and mean: of each part (the real reductions' accuracy)
  for _, name in ipairs { "sum", "mean" } do
    wrap(name, 3, function(orig, x, axis, opts)
      local ax, o
      x, ax, o = reduce_args(name, x, axis, opts)
      local ro = ax ~= nil and { keepdims = o.keepdims } or nil
      local re, im = orig(part(x, 0), ax, ro), orig(part(x, 1), ax, ro)
      if ax == nil then return gm.complex(re, im) end
      return finish(from_parts(re, im, x:ctype()), ax, o)
    end)
  end
  -- var and std: NumPy's, real (the parts' type): the mean of
  -- |x - mean|^2, which is the parts' variances added (the same divisor,
  -- n or n - 1 with unbiased); std its square root.  The options go to
  -- the real var (keepdims, unbiased, a float dtype), out takes the sum.
  for _, name in ipairs { "var", "std" } do
    wrap(name, 3, function(orig, x, axis, opts)
      if type(axis) == "table" and opts == nil then axis, opts = axis.axis, axis end
      local ro, out = {}, nil
      for k, v in pairs(opts or {}) do
        if k == "out" then out = v elseif k ~= "axis" then ro[k] = v end
      end
      if out ~= nil and axis == nil then argerror(3, name, "keepdims and out need an axis (argument #2)") end
      local var = gm.var
      local v = var(part(x, 0), axis, ro) + var(part(x, 1), axis, ro)
      if name == "std" then v = axis == nil and math.sqrt(v) or gm.sqrt(v) end
      if out ~= nil then
        gm.add(v, 0, { out = out })
        return out
      end
      return v
    end)
  end
  -- prod: halves multiplied pairwise until one is left (log2 n steps of
  -- elementwise products); the axis kept, of size 1
  local function prod_axis(x, axis)
    local d = x:dims()
    local n = d[axis]
    if n == 0 then
      d[axis] = 1
      return gm.full(d, 1, { ctype = x:ctype(), cuda_enabled = x:cuda_enabled() })
    end
    local y = x
    while n > 1 do
      local h = n // 2
      local p = gm.cmul(y:narrow(axis, 1, h), y:narrow(axis, h + 1, h))
      if n % 2 == 1 then
        local first = p:narrow(axis, 1, 1)
        gm.add(gm.cmul(first, y:narrow(axis, n, 1)), 0, { out = first })
      end
      y, n = p, h
    end
    return y
  end
  wrap("prod", 3, function(_, x, axis, opts)
    local ax, o
    x, ax, o = reduce_args("prod", x, axis, opts)
    if ax == nil then return prod_axis(x:contiguous():view(x:size()), 1):view(1)[1] end
    local k = argcheck.axis("prod", ax, #x:dims(), 2)
    local y = prod_axis(x, k):contiguous()
    if not o.keepdims then
      local d = {}
      for i, v in ipairs(x:dims()) do if i ~= k then d[#d + 1] = v end end
      y = y:view(d) -- rank 0 when x was 1-d (the real reductions' result)
    end
    return finish(y, ax, o)
  end)

  -- ---- scans ----
  local function scan_args(fn, x, opts)
    opts = argcheck.options(fn, opts, 2, { axis = true, dtype = true, include_initial = true })
    local r = #x:dims()
    if opts.axis == nil and r > 1 then argerror(2, fn, "axis is required for a rank %d mat", r) end
    if opts.dtype ~= nil then
      if not gm.isdtype(opts.dtype, "complex floating") then
        argerror(2, fn, "option 'dtype' must be complex64 or complex128 for a complex mat, got %s",
          tostring(opts.dtype))
      end
      x = x:as(opts.dtype)
    end
    return x, argcheck.axis(fn, opts.axis or 1, r, 2), opts.include_initial and true or false
  end
  wrap("cumulative_sum", 2, function(orig, x, opts)
    local axis, init
    x, axis, init = scan_args("cumulative_sum", x, opts)
    local o = { axis = axis, include_initial = init }
    return from_parts(orig(part(x, 0), o), orig(part(x, 1), o), x:ctype())
  end)
  -- inclusive scan by doubling (Hillis-Steele): y[i] *= y[i - s] for
  -- s = 1, 2, 4, ..., each step from the previous step's values
  wrap("cumulative_prod", 2, function(_, x, opts)
    local axis, init
    x, axis, init = scan_args("cumulative_prod", x, opts)
    local n = x:dims()[axis]
    local d = x:dims()
    if init then d[axis] = n + 1 end
    local y = gm.full(d, 1, { ctype = x:ctype(), cuda_enabled = x:cuda_enabled() })
    local v = init and y:narrow(axis, 2, n) or y
    if n == 0 then return y end
    gm.add(x, 0, { out = v })
    local s = 1
    while s < n do
      local t = gm.cmul(v:narrow(axis, s + 1, n - s), v:narrow(axis, 1, n - s))
      gm.add(t, 0, { out = v:narrow(axis, s + 1, n - s) })
      s = s * 2
    end
    return y
  end)
end
