-- NumPy as the specs' reference: the python3 that has numpy, deterministic
-- values, and one python3 process per batch of expressions.  Specs that
-- compare with NumPy require this file instead of writing their own
-- (pending without numpy: R.python is nil and R.why says why).
local gm = require "gpumat"

local R = {}

-- the first python3 with numpy: Debian's (as bench/ uses; the one on PATH
-- may lack numpy and be a slow shim), then PATH's; GPUMAT_PYTHON names
-- another.  References are
-- written for NumPy >= 1.24 (no NumPy 2-only names).
for _, py in ipairs { os.getenv("GPUMAT_PYTHON") or "/usr/bin/python3", "python3" } do
  local ok = os.execute(py .. " -c 'import numpy' >/dev/null 2>&1")
  if ok == true or ok == 0 then R.python = py break end
end
R.why = R.python == nil and "python3 with numpy is not installed" or nil

-- deterministic values in [-1, 1], multiples of 1/64 (exact in float)
function R.vals(n, seed)
  local t, x = {}, seed * 7919 + 17
  for i = 1, n do
    x = (x * 1103515245 + 12345) % 2147483648
    t[i] = (x % 129 - 64) / 64
  end
  return t
end

function R.count(dims)
  local n = 1
  for _, d in ipairs(dims) do n = n * d end
  return n
end

-- the numbers of a nested table (a mat's to_table(), or a number) in
-- row-major order, as a flat list: the one flattener of the specs'
-- helpers (blas_ref and strided_mats hand it out too); gm.complex values
-- (tables with re and im) are elements
function R.flatten(t)
  local out = {}
  local function rec(x)
    if type(x) == "table" and x.re == nil then
      for _, v in ipairs(x) do rec(v) end
    else
      out[#out + 1] = x
    end
  end
  rec(t)
  return out
end

-- the elements of a mat (or a number) in row-major order, as a flat list
function R.flat(m)
  if type(m) ~= "userdata" then return { m } end
  return R.flatten(m:to_table())
end

-- a mat of ctype ct and dims from the flat list v
function R.mk(ct, dims, v)
  if #v == 0 then return gm.zeros(dims, { ctype = ct }) end
  return gm.mat(#v, { ctype = ct, initial_contents = v }):reshape(dims)
end

-- the output lines of the Python program src (a string)
function R.run(src)
  assert(R.python, R.why)
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(src, "\n")
  f:close()
  local p = assert(io.popen(R.python .. " " .. path))
  local lines = {}
  for line in p:lines() do lines[#lines + 1] = line end
  p:close()
  os.remove(path)
  return lines
end

local function number(w)
  return tonumber(w) or (w == "inf" and math.huge) or (w == "-inf" and -math.huge) or (0 / 0)
end

-- NumPy's results of exprs (Python expressions over the float64 arrays
-- vars = {name = {dims, values}}), in one process: one {shape, flat
-- values} per expr (inf, -inf and nan read back as Lua numbers)
function R.numpy(vars, exprs)
  local src = { "import numpy as np", "inf, nan = np.inf, np.nan  # %.17g writes these" }
  for name, d in pairs(vars) do
    local vs, shape = {}, {}
    for i, x in ipairs(d[2]) do vs[i] = x ~= x and "np.nan" or string.format("%.17g", x):gsub("inf", "np.inf") end
    for i, x in ipairs(d[1]) do shape[i] = tostring(x) end
    src[#src + 1] = string.format("%s = np.array([%s], dtype=np.float64).reshape(%s)", name,
      table.concat(vs, ","), #shape == 0 and "()" or "(" .. table.concat(shape, ",") .. ",)")
  end
  for _, e in ipairs(exprs) do
    src[#src + 1] = "r = np.asarray(" .. e .. ", dtype=np.float64)"
    src[#src + 1] = "print(' '.join(str(d) for d in r.shape))"
    src[#src + 1] = "print(' '.join(repr(float(x)) for x in np.ravel(r)))"
  end
  local lines = R.run(table.concat(src, "\n"))
  assert(#lines == 2 * #exprs, "numpy failed (its message is above)")
  local out = {}
  for i = 1, #exprs do
    local shape, v = {}, {}
    for w in lines[2 * i - 1]:gmatch("%S+") do shape[#shape + 1] = tonumber(w) end
    for w in lines[2 * i]:gmatch("%S+") do v[#v + 1] = number(w) end
    out[i] = { shape, v }
  end
  return out
end

return R
