-- gm.fft: the array standard's FFT extension (2025.12), with NumPy 2's
-- semantics where the standard is silent.  Every transform is built on
-- core._fft (src/core/ops/fft.c): one unnormalized 1-d transform along one
-- axis (complex to complex, real to complex, complex to real), which runs
-- where the mats live: KISS FFT on the host, cuFFT on CUDA, cuFFT's calls
-- over KISS FFT on the emulated device.  This file does the rest: the
-- element types (real input to the complex type of its precision,
-- integers and bool to complex128), n/s (zero padding or truncation),
-- axes (1-based, negative from the end; several axes are successive 1-d
-- transforms), the norms (a scaling after the transform), the Hermitian
-- variants and the frequency and shift helpers.
local argcheck = require "gpumat.argcheck"
local argerror = argcheck.argerror

return function(gm, core, methods)
  local mat_mt = getmetatable(core.mat(0))
  local function is_mat(x) return getmetatable(x) == mat_mt end

  local NORMS = { backward = true, ortho = true, forward = true }
  -- the complex type of each real or complex input type (NumPy's)
  local COMPLEX = { float32 = "complex64", complex64 = "complex64", complex128 = "complex128" }
  local REAL_OF = { complex64 = "float32", complex128 = "float64" }
  local NUMERIC = { bool = true, int8 = true, int16 = true, int32 = true, int64 = true, uint8 = true, uint16 = true,
    uint32 = true, uint64 = true, float32 = true, float64 = true, complex64 = true, complex128 = true }

  local function check_x(fn, x)
    if not is_mat(x) then argerror(1, fn, "gpumat.mat expected, got %s", type(x)) end
    local dt = x:dtype()
    if dt == "float16" or dt == "bfloat16" then
      argerror(1, fn, "a %s mat; not taken yet (convert with m:as(\"float32\"))", dt)
    end
    if not NUMERIC[dt] then argerror(1, fn, "a %s mat; the FFT takes real and complex mats", dt) end
    if #x:dims() == 0 then argerror(1, fn, "a 0-d mat has no axis to transform") end
    return dt
  end

  -- x as the complex type of its precision (a copy only when converting)
  local function as_complex(x)
    local want = COMPLEX[x:dtype()] or "complex128"
    return x:dtype() == want and x or x:as(want)
  end

  -- x as the real floating type of its precision; complex input raises
  local function as_real(fn, x)
    local dt = x:dtype()
    if REAL_OF[dt] then argerror(1, fn, "a %s mat; this transform takes real input", dt) end
    if dt == "float32" or dt == "float64" then return x end
    return x:as("float64")
  end

  local function opts_of(fn, opts, argn, allowed)
    opts = argcheck.options(fn, opts, argn, allowed)
    local norm = opts.norm
    if norm == nil then norm = "backward" end
    if not NORMS[norm] then
      argerror(argn, fn, "norm must be \"backward\", \"ortho\" or \"forward\", got %s", tostring(norm))
    end
    return opts, norm
  end

  local function length_arg(fn, v, what, argn)
    if math.type(v) ~= "integer" or v < 1 then
      argerror(argn, fn, "%s must be an integer of at least 1, got %s", what, tostring(v))
    end
    return v
  end

  -- x with length n along axis a: a view of the first n, or a zero-padded copy
  local function resized(x, a, n)
    local d = x:dims()
    local m = d[a]
    if m == n then return x end
    if n < m then return x:narrow(a, 1, n) end
    d[a] = n
    local z = gm.zeros(d, { dtype = x:dtype(), cuda_enabled = x:cuda_enabled() })
    if m > 0 then
      local sub = {}
      for i = 1, #d do sub[i] = {} end
      sub[a] = { 1, m }
      z[sub] = x
    end
    return z
  end

  -- the factor a transform of length n is scaled by
  local function scale_of(norm, n, inverse)
    if norm == "ortho" then return 1 / math.sqrt(n) end
    if (norm == "forward") ~= inverse then return 1 / n end
    return 1
  end

  local function scaled(y, s)
    if s == 1 then return y end
    return gm.multiply(y, s, { out = y })
  end

  -- the new mat of the transform's result: x's dims with len along a
  local function result(x, a, len, dtype)
    local d = x:dims()
    d[a] = len
    return gm.zeros(d, { dtype = dtype, cuda_enabled = x:cuda_enabled() })
  end

  -- one transform along axis a (a positive axis), unnormalized
  local function c2c(fn, x, a, n, inverse)
    x = resized(x, a, n)
    local y = result(x, a, n, x:dtype())
    core._fft(fn, x, y, a, "c2c", n, inverse)
    return y
  end

  local function r2c(fn, x, a, n)
    x = resized(x, a, n)
    local y = result(x, a, n // 2 + 1, COMPLEX[x:dtype()] or "complex128")
    core._fft(fn, x, y, a, "r2c", n, false)
    return y
  end

  local function c2r(fn, x, a, n)
    x = resized(x, a, n // 2 + 1)
    local y = result(x, a, n, REAL_OF[x:dtype()])
    core._fft(fn, x, y, a, "c2r", n, true)
    return y
  end

  local function axis_opt(fn, opts, x, argn)
    local ax = opts.axis
    if ax == nil then ax = -1 end
    return argcheck.axis(fn, ax, #x:dims(), argn)
  end

  -- the n option, or the default length
  local function n_opt(fn, opts, default, argn)
    if opts.n == nil then
      if default < 1 then argerror(argn, fn, "invalid number of data points (%d); give n", default) end
      return default
    end
    return length_arg(fn, opts.n, "n", argn)
  end

  local one_axis = { n = true, axis = true, norm = true }
  local F = {}

  -- the prologue of the 1-d transforms: the checks and options of
  -- gm.fft.NAME, the axis, and the length n (default: of the axis's
  -- length through default_n)
  local function one_d(name, x, opts, default_n)
    local fn = "gm.fft." .. name
    check_x(fn, x)
    local o, norm = opts_of(fn, opts, 2, one_axis)
    local a = axis_opt(fn, o, x, 2)
    return fn, a, n_opt(fn, o, default_n(x:dims()[a]), 2), norm
  end
  local function same(len) return len end
  local function hermitian(len) return 2 * (len - 1) end -- the real length of a half spectrum

  function F.fft(x, opts)
    local fn, a, n, norm = one_d("fft", x, opts, same)
    return scaled(c2c(fn, as_complex(x), a, n, false), scale_of(norm, n, false))
  end

  function F.ifft(x, opts)
    local fn, a, n, norm = one_d("ifft", x, opts, same)
    return scaled(c2c(fn, as_complex(x), a, n, true), scale_of(norm, n, true))
  end

  function F.rfft(x, opts)
    local fn, a, n, norm = one_d("rfft", x, opts, same)
    return scaled(r2c(fn, as_real(fn, x), a, n), scale_of(norm, n, false))
  end

  function F.irfft(x, opts)
    local fn, a, n, norm = one_d("irfft", x, opts, hermitian)
    return scaled(c2r(fn, as_complex(x), a, n), scale_of(norm, n, true))
  end

  -- the Hermitian pair (NumPy's): hfft is irfft of the conjugate, ihfft
  -- the conjugate of rfft, each with the norm's direction swapped
  local SWAP = { backward = "forward", forward = "backward", ortho = "ortho" }

  function F.hfft(x, opts)
    local fn, a, n, norm = one_d("hfft", x, opts, hermitian)
    return scaled(c2r(fn, gm.conj(as_complex(x)), a, n), scale_of(SWAP[norm], n, true))
  end

  function F.ihfft(x, opts)
    local fn, a, n, norm = one_d("ihfft", x, opts, same)
    return gm.conj(scaled(r2c(fn, as_real(fn, x), a, n), scale_of(SWAP[norm], n, false)))
  end

  -- s and axes of the n-dimensional transforms as positive axes and
  -- lengths (-1 in s: the input's length); without axes, the last #s
  -- axes (NumPy's), or every axis
  local function s_axes(fn, x, o, argn, last_default)
    local r, d = #x:dims(), x:dims()
    local s, axes = o.s, o.axes
    if s ~= nil and type(s) ~= "table" then argerror(argn, fn, "s must be a list of lengths, got %s", type(s)) end
    if axes ~= nil and type(axes) ~= "table" then axes = { axes } end
    if axes == nil then
      axes = {}
      local k = s and #s or r
      if k > r then argerror(argn, fn, "s has %d lengths for a %d-d mat", k, r) end
      for i = 1, k do axes[i] = r - k + i end
    end
    local ax, len = {}, {}
    if s and #s ~= #axes then argerror(argn, fn, "s has %d lengths for %d axes", #s, #axes) end
    for i, v in ipairs(axes) do
      ax[i] = argcheck.axis(fn, v, r, argn)
      local si = s and s[i]
      if si == nil or si == -1 then
        len[i] = nil
      else
        len[i] = length_arg(fn, si, ("s[%d]"):format(i), argn)
      end
    end
    return ax, len, d
  end

  local n_axes = { s = true, axes = true, norm = true }

  local function fftn(fn, x, opts, inverse)
    check_x(fn, x)
    local o, norm = opts_of(fn, opts, 2, n_axes)
    local ax, len, d = s_axes(fn, x, o, 2)
    local y, total = as_complex(x), 1
    for i = #ax, 1, -1 do
      local n = len[i] or d[ax[i]]
      if n < 1 then argerror(2, fn, "invalid number of data points (%d) on axis %d", n, ax[i]) end
      y = c2c(fn, y, ax[i], n, inverse)
      total = total * n
    end
    return scaled(y == x and y:copy() or y, scale_of(norm, total, inverse))
  end

  function F.fftn(x, opts) return fftn("gm.fft.fftn", x, opts, false) end

  function F.ifftn(x, opts) return fftn("gm.fft.ifftn", x, opts, true) end

  -- rfftn: the real transform along the last axis, then complex ones
  function F.rfftn(x, opts)
    local fn = "gm.fft.rfftn"
    check_x(fn, x)
    local o, norm = opts_of(fn, opts, 2, n_axes)
    local ax, len, d = s_axes(fn, x, o, 2)
    if #ax == 0 then return gm.asarray(as_complex(as_real(fn, x)), { copy = true }) end
    local n = len[#ax] or d[ax[#ax]]
    if n < 1 then argerror(2, fn, "invalid number of data points (%d) on axis %d", n, ax[#ax]) end
    local y, total = r2c(fn, as_real(fn, x), ax[#ax], n), n
    for i = #ax - 1, 1, -1 do
      local m = len[i] or d[ax[i]]
      if m < 1 then argerror(2, fn, "invalid number of data points (%d) on axis %d", m, ax[i]) end
      y = c2c(fn, y, ax[i], m, false)
      total = total * m
    end
    return scaled(y, scale_of(norm, total, false))
  end

  -- irfftn: complex inverses along all but the last axis, then the real
  -- one (its length s[-1], by default 2*(m-1))
  function F.irfftn(x, opts)
    local fn = "gm.fft.irfftn"
    check_x(fn, x)
    local o, norm = opts_of(fn, opts, 2, n_axes)
    local ax, len, d = s_axes(fn, x, o, 2)
    if #ax == 0 then argerror(2, fn, "no axes to transform") end
    local y, total = as_complex(x), 1
    for i = 1, #ax - 1 do
      local m = len[i] or d[ax[i]]
      if m < 1 then argerror(2, fn, "invalid number of data points (%d) on axis %d", m, ax[i]) end
      y = c2c(fn, y, ax[i], m, true)
      total = total * m
    end
    local n = len[#ax] or 2 * (d[ax[#ax]] - 1)
    if n < 1 then argerror(2, fn, "invalid number of data points (%d) on axis %d; give s", n, ax[#ax]) end
    y = c2r(fn, y, ax[#ax], n)
    return scaled(y, scale_of(norm, total * n, true))
  end

  -- the sample frequencies (NumPy's fftfreq/rfftfreq), float64 unless
  -- dtype: the integers k (fftfreq: k - n from the middle on) made by
  -- gm.arange in float64 (exact), times 1 / (d n) in place, then converted:
  -- no Lua table of n values (a fuzzer's huge n grew one until the
  -- machine ran out of memory; a mat of n doubles fails at allocation)
  local freq_opts = { d = true, dtype = true, cuda_enabled = true }

  local function freq(fn, n, opts, full)
    length_arg(fn, n, "n", 1)
    local o = argcheck.options(fn, opts, 2, freq_opts)
    local dd = o.d
    if dd == nil then dd = 1.0 end
    if type(dd) ~= "number" or dd == 0 then argerror(2, fn, "d must be a nonzero number, got %s", tostring(dd)) end
    local dt = o.dtype or "float64"
    if dt ~= "float32" and dt ~= "float64" and dt ~= "float" and dt ~= "double" then
      argerror(2, fn, "dtype must be a real floating type, got %s", tostring(dt))
    end
    local m = full and n or n // 2 + 1 -- rfftfreq: the non-negative ones
    local ok, v = pcall(gm.arange, 0, m, { dtype = "float64", cuda_enabled = o.cuda_enabled })
    if not ok then -- too many values, or no memory for them
      local why = tostring(v):match("^bad argument #%d+ to '[^']*' %((.*)%)$") or tostring(v)
      argerror(1, fn, "cannot make %d frequencies: %s", m, why)
    end
    local h = (n - 1) // 2 + 1 -- fftfreq: 0 .. h-1, then -(n // 2) .. -1
    if full and m > h then v:narrow(1, h + 1, m - h):add_scalar_(-n) end
    v:scal_(1 / (dd * n))
    if dt == "float32" or dt == "float" then v = v:astype(dt) end
    return v
  end

  function F.fftfreq(n, opts) return freq("gm.fft.fftfreq", n, opts, true) end

  function F.rfftfreq(n, opts) return freq("gm.fft.rfftfreq", n, opts, false) end

  -- fftshift rolls each axis by floor(len/2), ifftshift back
  local function shift(fn, x, opts, sign)
    if not is_mat(x) then argerror(1, fn, "gpumat.mat expected, got %s", type(x)) end
    local o = argcheck.options(fn, opts, 2, { axes = true })
    local r, d = #x:dims(), x:dims()
    local axes = o.axes
    if axes == nil then
      axes = {}
      for i = 1, r do axes[i] = i end
    elseif type(axes) ~= "table" then
      axes = { axes }
    end
    if #axes == 0 then return x:copy() end
    local ax, sh = {}, {}
    for i, v in ipairs(axes) do
      ax[i] = argcheck.axis(fn, v, r, 2)
      sh[i] = sign * (d[ax[i]] // 2)
    end
    return gm.roll(x, sh, { axis = ax })
  end

  function F.fftshift(x, opts) return shift("gm.fft.fftshift", x, opts, 1) end

  function F.ifftshift(x, opts) return shift("gm.fft.ifftshift", x, opts, -1) end

  -- the argument count rule, naming gm.fft.NAME
  for k, f in pairs(F) do F[k] = argcheck.strict("gm.fft." .. k, f) end
  gm.fft = F
  -- the functions whose first parameter is an array are methods too
  for _, name in ipairs { "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
    "fftshift", "ifftshift" } do
    methods[name] = F[name]
  end
end
