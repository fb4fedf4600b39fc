-- Op families for the "device and host agree" specs: every family builds
-- its operands from fixed contents, runs its ops, and returns the results
-- (mats and numbers).  spec/device_spec.lua runs each family on the host
-- and on the emulated device, spec/gpu/cuda_device_spec.lua on the host
-- and on a real GPU, and both compare element by element with a
-- tolerance per ctype.  `device_result = false` marks families whose
-- results are computed on the host facet by design (m_eq); a backend name
-- ("emulated") checks the device facet on that backend only.  invert and
-- logdet run on the device on both backends (cuSOLVER; on the emulated
-- device LAPACK behind cuSOLVER's arguments).
local gm = require "gpumat"
local assert = require "luassert"

local M = {}

M.TOL = { float = 1e-5, double = 1e-12 }

-- Where a spec runs the same checks: a name for its describe blocks and a
-- runner that calls f there (the emulated device through a nested context,
-- so under GPUMAT_DEVICE=emulated the "host" runner is the wrapper's device).
M.places = {
  { "the host", function(f) f() end },
  { "the emulated device", function(f) gm.with_cuda({ backend = "emulated" }, f) end },
}

local function mat(ctype, contents) return gm.mat(#contents, { ctype = ctype, initial_contents = contents }) end
local function mat2(ctype, rows) return gm.mat({ #rows, #rows[1] }, { ctype = ctype, initial_contents = rows }) end

-- n values in [-1.25, 1.25], no two neighbours equal
local function seq(ctype, n, scale)
  local t = {}
  for i = 1, n do t[i] = ((i * 37) % 11 - 5) * (scale or 0.25) end
  return mat(ctype, t)
end

local A34 = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 9, 1, 2, 3 } }
local B42 = { { 1, 0 }, { 2, 1 }, { 0, 3 }, { 1, 1 } }
local X44 = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 9, 1, 2, 3 }, { 4, 5, 6, 7 } }

-- every unary op of the op table (kernels/op_table.h), in its order
M.unary = require("gpumat.core")._unary_ops

M.families = {
  { name = "fill_", build = function(ct)
    local x = gm.mat(7, { ctype = ct, initial_element = 0 })
    gm.fill_(1.5, x)
    local y = gm.mat(5, { ctype = ct, initial_element = 2 })
    gm.fill_(-3, y, { n = 2 })
    return x, y
  end },

  { name = "BLAS level 1 (asum, nrm2, dot, axpy_, copy_, scal_)", build = function(ct)
    local x, y = seq(ct, 9), seq(ct, 9, 0.5)
    gm.axpy_(2, x, y)
    gm.scal_(-3, x)
    local z = gm.mat(9, { ctype = ct, initial_element = 0 })
    gm.copy_(y, z)
    local strided = gm.mat(3, { ctype = ct, initial_element = 0 })
    gm.copy_(y, strided, { n = 3, incx = 3 })
    return x, y, z, strided, gm.asum(y), gm.nrm2(y), gm.dot(x, y), gm.asum(y, { n = 4, incx = 2 })
  end },

  { name = "gemm_", build = function(ct)
    local a, b = mat2(ct, A34), mat2(ct, B42)
    local c = gm.mat({ 3, 2 }, { ctype = ct, initial_element = 1 })
    gm.gemm_(2, a, b, 0.5, c)
    local ct_ = gm.mat({ 2, 3 }, { ctype = ct, initial_element = 0 })
    gm.gemm_(1, b, a, 0, ct_, { transpose_a = true, transpose_b = true })
    local big = gm.mat({ 3, 4 }, { ctype = ct, initial_element = 7 })
    gm.gemm_(1, a, b, 0, big, { n = 2, ldc = 4 }) -- sub-block: columns 3..4 untouched
    return c, ct_, big
  end },

  { name = "geam users (transpose, m_add, m_sub, scaled copies)", build = function(ct)
    local a, b = mat2(ct, A34), mat2(ct, { { 0, 1, 0, 1 }, { 2, 2, 2, 2 }, { 1, 0, 1, 0 } })
    -- several 32 x 32 tiles with partial ones at both edges, and a wide one
    local t = {}
    for k = 1, 70 * 45 do t[k] = (k * 7) % 31 - 15 end
    local big = gm.mat({ 70, 45 }, { ctype = ct, initial_contents = t })
    local wide = gm.mat({ 2, 1575 }, { ctype = ct, initial_contents = t })
    return gm.transpose(a), gm.m_add(a, b), gm.m_sub(a, b), 2 * a, a / 4, -a, gm.transpose(big), gm.transpose(wide)
  end },

  { name = "unary elementwise", build = function(ct)
    local out = {}
    for _, f in ipairs(M.unary) do
      local x = mat(ct, { 0.5, 1, 1.5, 2, 3 })
      gm[f .. "_"](x)
      out[#out + 1] = x
    end
    local part = mat(ct, { 0.5, 1, 1.5 })
    gm.exp_(part, { n = 2 })
    out[#out + 1] = part
    return table.unpack(out)
  end },

  { name = "elementwise functions out of place, clamp", build = function(ct)
    local out = {}
    local x = mat(ct, { -2.5, -1.5, -0.5, 0.25, 0.5, 1.75, 2.5 })
    for _, f in ipairs(M.unary) do
      if f ~= "sqrt" and f ~= "log" then out[#out + 1] = gm[f](x) end
    end
    local into = gm.mat(7, { ctype = ct, initial_element = 9 })
    gm.relu(x, { out = into })
    out[#out + 1] = into
    out[#out + 1] = x:clamp(-1, 1)
    local c = x:copy()
    c:clamp_(-0.5, 2)
    out[#out + 1] = c
    out[#out + 1] = x
    return table.unpack(out)
  end },

  { name = "binary and scalar elementwise", build = function(ct)
    local x, y = seq(ct, 6), seq(ct, 6, 0.75)
    gm.add_scalar_(2, x)
    gm.mul_(x, y)
    local lt = seq(ct, 6, 0.1)
    gm.lt_(x, lt)
    local e = mat(ct, { 0.5, 1, 2, 3 })
    gm.expt_(e, 2.5)
    local lo, hi = seq(ct, 6), seq(ct, 6)
    gm.min_(0.3, lo)
    gm.max_(-0.3, hi)
    local c = seq(ct, 6, 0.3)
    gm.geem_(2, x, y, 0.5, c)
    local s = seq(ct, 6, 0.2)
    gm.add_sign_(1.5, seq(ct, 6), -1, s)
    local a = mat2(ct, A34)
    local b = gm.mat({ 3, 4 }, { ctype = ct, initial_element = 1 })
    gm.geerv_(0.5, a, mat(ct, { 1, -1, 2, 0 }), 2, b)
    return x, y, lt, e, lo, hi, c, s, b
  end },

  { name = "sum_, scale_rows_, scale_columns_", build = function(ct)
    local a = mat2(ct, A34)
    local cols = gm.mat({ 1, 4 }, { ctype = ct, initial_element = 1 })
    gm.sum_(a, cols, { axis = 1, alpha = 2, beta = 0.5 })
    local rows = gm.mat(3, { ctype = ct, initial_element = 0 })
    gm.sum_(a, rows, { axis = 2 })
    local r = gm.mat({ 3, 4 }, { ctype = ct, initial_element = 0 })
    gm.scale_rows_(mat(ct, { 2, 3, -1 }), a, { result = r })
    local c = mat2(ct, A34)
    gm.scale_columns_(mat(ct, { 1, 0.5, -2, 4 }), c)
    -- column sums of tall narrow mats: many slots merged in levels, a last
    -- narrower column group (20 columns: 16 + 4 floats, 8 + 8 + 4 doubles),
    -- and one big enough for the emulated device's own (chunked) form
    local out = { cols, rows, r, c }
    for _, d in ipairs { { 2000, 3 }, { 600, 20 }, { 30000, 10 } } do
      local n, t = d[1] * d[2], {}
      for k = 1, n do t[k] = ((k * 37) % 23 - 11) / 8 end
      local x = gm.mat(d, { ctype = ct, initial_contents = t })
      local y = gm.mat({ 1, d[2] }, { ctype = ct, initial_element = 1 })
      gm.sum_(x, y, { axis = 1, alpha = 0.5, beta = 2 })
      out[#out + 1] = y
    end
    return table.unpack(out)
  end },

  { name = "NN (convolve_, derive_convolve_, max_pool_, derive_max_pool_)", build = function(ct)
    local x = mat2(ct, X44)
    local w = mat2(ct, { { 1, -1 }, { 0.5, 2 } })
    local opts = { start = { 1, 1 }, stride = { 1, 1 }, anchor = { 1, 1 } }
    local y = gm.mat({ 4, 4 }, { ctype = ct, initial_element = 0.5 })
    gm.convolve_(x, w, y, opts)
    local xd = gm.mat({ 4, 4 }, { ctype = ct, initial_element = 0 })
    local wd = gm.mat({ 2, 2 }, { ctype = ct, initial_element = 1 })
    gm.derive_convolve_(x, xd, w, wd, y, opts)
    local bx = gm.mat({ 2, 4, 4 }, { ctype = ct, initial_element = 1 })
    gm.copy_(gm.mat(16, { ctype = ct, initial_contents = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3 } }),
      bx, { n = 16 })
    local popts = { pool_dimensions = { 2, 2 }, stride = { 2, 2 }, batched = true }
    local py = gm.mat({ 2, 2, 2 }, { ctype = ct, initial_element = 0 })
    gm.max_pool_(bx, py, popts)
    local pxd = gm.mat({ 2, 4, 4 }, { ctype = ct, initial_element = 0 })
    local pyd = gm.mat({ 2, 2, 2 }, { ctype = ct, initial_contents = { { { 1, 2 }, { 3, 4 } }, { { 5, 6 }, { 7, 8 } } } })
    gm.derive_max_pool_(bx, pxd, py, pyd, popts)
    return y, xd, wd, py, pxd
  end },

  { name = "non-destructive ops", build = function(ct)
    local a, b = mat2(ct, A34), mat2(ct, B42)
    return gm.copy_mat(a), gm.copy_row(a, 2), gm.copy_column(a, 3), gm.m_mul(a, b),
      gm.m_mul(a, a, { transpose_b = true }), gm.mm_mul(a, b, gm.transpose(b)), a * b
  end },

  { name = "m_eq and mat_as_scalar (host facet by design)", device_result = false, build = function(ct)
    local a = mat2(ct, A34)
    local b = gm.copy_mat(a)
    gm.scal_(1, b)
    local s = gm.mat(1, { displaced_to = a, displacement = 5 })
    gm.scal_(2, s)
    return gm.m_eq(a, b) and 1 or 0, gm.mat_as_scalar(s)
  end },

  { name = "stack_ and stack", build = function(ct)
    local a = mat2(ct, { { 1, 2 }, { 3, 4 } })
    local b = mat2(ct, { { 5, 6 } })
    local out = gm.mat({ 3, 2 }, { ctype = ct, initial_element = 0 })
    gm.stack_(1, { a, b }, out)
    return out, gm.stack(2, { a, gm.transpose(a) }, { ctype = ct })
  end },

  { name = "invert and logdet", build = function(ct)
    local a = mat2(ct, { { 4, 1, 2 }, { 1, 3, 0 }, { 2, 0, 5 } })
    gm.scal_(1, a) -- on the device when the family runs there
    local v, sign = gm.logdet(a)
    return gm.invert(a), v, sign
  end },

  { name = "displaced views", build = function(ct)
    local base = gm.mat(10, { ctype = ct, initial_contents = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 } })
    local view = gm.mat({ 2, 3 }, { displaced_to = base, displacement = 2 })
    gm.scal_(2, view)
    gm.exp_(gm.mat(2, { displaced_to = base, displacement = 8 }))
    gm.fill_(-1, gm.mat(1, { displaced_to = base, displacement = 0 }))
    return base
  end },

  { name = "reductions along an axis (rows, column tiles, middle axes, whole mats)", build = function(ct)
    local function gen(dims, scale)
      local n = 1
      for _, d in ipairs(dims) do n = n * d end
      local t = {}
      for k = 1, n do t[k] = ((k * 37) % 23 - 11) / 8 * (scale or 1) end
      return gm.mat(dims, { ctype = ct, initial_contents = t })
    end
    local rows, cube, wide = gen({ 5, 70 }), gen({ 3, 40, 37 }), gen({ 2, 3 }, 0.5)
    local out = {}
    for _, f in ipairs { "sum", "mean", "max", "min", "var", "std", "argmax", "argmin" } do
      out[#out + 1] = rows[f](rows, 2)
      out[#out + 1] = rows[f](rows, 1)
      out[#out + 1] = cube[f](cube, 2)
      out[#out + 1] = cube[f](cube, -1, { keepdims = true })
      out[#out + 1] = cube[f](cube, 1)
    end
    out[#out + 1] = gen({ 3, 6, 5 }, 0.5):prod(2)
    out[#out + 1] = wide:prod(1)
    out[#out + 1] = rows:std(2, { unbiased = true })
    out[#out + 1] = gm.logsumexp(rows, 2)
    out[#out + 1] = gm.logsumexp(cube, 2)
    out[#out + 1] = gm.softmax(rows, 2)
    out[#out + 1] = gm.softmax(cube, 3)
    out[#out + 1] = gm.softmax(cube, 1)
    out[#out + 1] = gm.mat({ 0, 4 }, { ctype = ct }):prod(1)
    out[#out + 1] = rows:argmax()
    out[#out + 1] = cube:argmin()
    out[#out + 1] = rows:var()
    out[#out + 1] = wide:prod()
    -- long narrow axes (split over blocks, lanes x pow2(inner) columns),
    -- short rows (a thread per row), and a long narrow axis big enough for
    -- the emulated device's own form (cache-sized regions per item)
    local tall, tall5, big = gen({ 3000, 3 }), gen({ 2100, 5 }, 0.5), gen({ 30000, 3 }, 0.25)
    for _, f in ipairs { "sum", "mean", "var", "argmax" } do
      out[#out + 1] = tall[f](tall, 1)
      out[#out + 1] = tall5[f](tall5, 1)
      out[#out + 1] = tall[f](tall, 2)
      out[#out + 1] = big[f](big, 1)
    end
    out[#out + 1] = gm.softmax(tall, 1)
    out[#out + 1] = gm.softmax(tall5, 2)
    out[#out + 1] = gm.softmax(big, 1)
    out[#out + 1] = gm.logsumexp(big, 1)
    return table.unpack(out)
  end },

  { name = "argmax/argmin ties and NaN along an axis", build = function(ct)
    local nan = 0 / 0
    local m = gm.mat({ 3, 40 }, { ctype = ct, initial_element = 1 })
    m:set(1, 17, 2); m:set(1, 33, 2); m:set(2, 9, nan); m:set(2, 30, nan); m:set(3, 40, 0)
    local c = gm.mat({ 40, 3 }, { ctype = ct, initial_element = 1 })
    c:set(17, 1, 2); c:set(33, 1, 2); c:set(9, 2, nan); c:set(30, 2, nan); c:set(40, 3, 0)
    return m:argmax(2), m:argmin(2), m:max(2), c:argmax(1), c:argmin(1), c:min(1), m:argmax(), c:argmin()
  end },

  { name = "constructors that fill on the device (rand, randn)", build = function(ct)
    gm.seed(11)
    return gm.rand(3, 5, { ctype = ct }), gm.randn({ 4, 2 }, { ctype = ct }), gm.rand(7, { ctype = ct })
  end },

  { name = "constructors (values written on the host)", device_result = false, build = function(ct)
    local o = { ctype = ct }
    return gm.zeros(2, 3, o), gm.ones({ 4 }, o), gm.full(3, 2.5, o), gm.eye(3, 4, o), gm.range(1, 2, 0.25, o),
      gm.linspace(-1, 1, 7, o), gm.range(10, 1, -3, o), gm.array_to_mat({ 1.1, 2 }):as(ct)
  end },
}

local function close(a, b, ctype)
  if a ~= a then return b ~= b end
  if a == b then return true end
  return math.abs(a - b) <= M.TOL[ctype] * math.max(1, math.abs(a), math.abs(b))
end

local function compare_tables(e, a, ctype, what)
  assert.are.equal(#e, #a, what .. ": lengths")
  for i = 1, #e do
    if type(e[i]) == "table" then
      compare_tables(e[i], a[i], ctype, what)
    elseif not close(e[i], a[i], ctype) then
      -- luassert only on a mismatch: an assertion per element costs
      -- minutes under the aggressive collector (tens of thousands of them)
      assert.is_true(false, ("%s: element %d: %s vs %s"):format(what, i, e[i], a[i]))
    end
  end
end

-- Runs family f for ctype on the host (cuda disabled) and in
-- gm.with_cuda(device_opts); compares every result.  On the device, mat
-- results must have a cuda facet (they were computed there) unless the
-- family says otherwise.
function M.agree(f, ctype, device_opts)
  local host = table.pack(gm.with_cuda({ enabled = false }, function() return f.build(ctype) end))
  local dev = table.pack(gm.with_cuda(device_opts, function()
    assert.is_true(gm.use_cuda_p(), f.name .. ": no device")
    local r = table.pack(f.build(ctype))
    for i = 1, r.n do
      local check = f.device_result == nil or f.device_result == device_opts.backend
      if type(r[i]) == "userdata" and check then
        assert.is_truthy(r[i]:facets():find("C", 1, true), ("%s: result %d is not on the device (%s)"):format(
          f.name, i, r[i]:facets()))
      end
    end
    return table.unpack(r, 1, r.n)
  end))
  local what = f.name .. " " .. ctype
  assert.are.equal(host.n, dev.n, what .. ": number of results")
  for i = 1, host.n do
    local h, d = host[i], dev[i]
    if type(h) == "number" then
      assert.is_true(close(h, d, ctype), ("%s: result %d: %s vs %s"):format(what, i, h, d))
    else
      compare_tables(h:to_table(), d:to_table(), ctype, ("%s: result %d"):format(what, i))
    end
  end
end

return M
