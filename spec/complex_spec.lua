-- complex64 and complex128 mats (docs/API.md "Complex mats"): making,
-- element access, printing, conversion to and from every ctype, .npy, the
-- elementwise arithmetic against NumPy (one python3 per group, complex
-- numbers passed as pairs), gm.complex values, and the refusals of the
-- functions not defined (or not yet implemented) for complex numbers.
local gm = require "gpumat"
local core = require "gpumat.core"
local R = require "numpy_ref"
local places = require("blas_ref").places

local C = gm.complex

local function parts(t)
  local out = {}
  for i, z in ipairs(t) do out[i] = { z.re, z.im } end
  return out
end

-- |got - want| within the ctype's tolerance (relative to the modulus)
local function close(got, want, ct, what)
  local tol = core._ctypes[ct].tol
  local scale = math.max(1, math.sqrt(want[1] ^ 2 + want[2] ^ 2))
  for k = 1, 2 do
    local g, w = k == 1 and got.re or got.im, want[k]
    local ok = (g ~= g and w ~= w) or g == w or math.abs(g - w) <= tol * scale
    assert(ok, ("%s: part %d: expected %.17g, got %.17g"):format(what, k, w, g))
  end
end


-- the values of a result as {re, im} pairs in row-major order: a mat
-- (complex or real), a gm.complex value or a Lua number
local function flat(v, out)
  out = out or {}
  if type(v) == "number" then
    out[#out + 1] = { re = v, im = 0 }
  elseif gm.iscomplex(v) then
    out[#out + 1] = v
  elseif type(v) == "table" then
    for _, x in ipairs(v) do flat(x, out) end
  else
    flat(v:to_table(), out)
  end
  return out
end

-- a NumPy line of "re im re im ..." as numbers
local function numbers(line)
  local want = {}
  for w in line:gmatch("%S+") do want[#want + 1] = tonumber(w) or (w == "nan" and 0 / 0) end
  return want
end

-- a python program printing each expression's values as pairs, one line each
local function numpy_lines(setup, exprs)
  local py = { "import numpy as np; np.seterr(all=\"ignore\")", setup }
  for _, e in ipairs(exprs) do
    py[#py + 1] = "r = np.ravel(np.asarray(" .. e .. ", dtype=np.complex128))"
    py[#py + 1] = "print(' '.join('%r %r' % (float(z.real), float(z.imag)) for z in r))"
  end
  return R.run(table.concat(py, "\n"))
end

local function check_values(got, line, ct, what)
  local want, g = numbers(line), flat(got)
  assert.equal(#want // 2, #g, what .. ": element count")
  for i, v in ipairs(g) do close(v, { want[2 * i - 1], want[2 * i] }, ct, what .. "[" .. i .. "]") end
end

-- NumPy's source text of a list of gm.complex values
local function pylist(t)
  local xs = {}
  for i, z in ipairs(t) do xs[i] = ("complex(%.17g,%.17g)"):format(z.re, z.im) end
  return "[" .. table.concat(xs, ",") .. "]"
end

describe("complex mats", function()
  it("are made, read, written, viewed, copied and printed", function()
    local m = gm.zeros({ 2, 3 }, { ctype = "complex64" })
    assert.equal("complex64", m:dtype())
    assert.equal("complex64", m:ctype())
    m[1] = C(1.5, -2)
    m[{ 2, 3 }] = 7
    m[{ 1, 2 }] = true
    assert.same({ 1.5, -2 }, { m[1].re, m[1].im })
    assert.same({ 7, 0 }, { m[{ 2, 3 }].re, m[{ 2, 3 }].im })
    assert.matches("^#<MAT 2x3 complex64 %u+ {{1%.5%-2i, 1%+0i, 0%+0i}, {0%+0i, 0%+0i, 7%+0i}}>$", tostring(m))
    assert.same({ { 1.5, -2 }, { 0, 0 } }, parts(m:t():to_table()[1]))
    assert.same({ { 1.5, -2 }, { 1, 0 } }, parts(m:reshape({ 3, 2 }):to_table()[1]))
    local c = m:copy()
    c[1] = C(-1, 1)
    assert.equal("1.5-2i", tostring(m[1]))
    assert.equal("-1+1i", tostring(c[1]))
    local a = gm.asarray({ C(1, 2), C(3, -4) })
    assert.equal("complex128", a:dtype())
    assert.matches("^#<MAT 2 complex128 %u+ {1%+2i, 3%-4i}>$", tostring(a))
    local f = gm.full({ 2 }, C(0.1, -0.25), { dtype = "complex64" })
    assert.matches("^#<MAT 2 complex64 %u+ {0%.1%-0%.25i, 0%.1%-0%.25i}>$", tostring(f))
    -- a gm.complex value holds doubles: complex64's 0.1 is 0.10000000149011612
    assert.equal("0.10000000149011612-0.25i", tostring(f[2]))
    assert.equal("complex128", gm.full({ 1 }, C(1, 1)):dtype())
    assert.equal("complex128", gm.mat(3, { ctype = "complex128" }):dtype())
    f:fill_(C(2, 3))
    assert.same({ { 2, 3 }, { 2, 3 } }, parts(f:to_table()))
    -- a real number fills both types (the host's contiguous fill wrote
    -- nothing for complex rows), whole, and through stepped views
    for _, dt in ipairs({ "complex64", "complex128" }) do
      local z = gm.zeros({ 5 }, { dtype = dt })
      z:fill_(5)
      assert.same({ { 5, 0 }, { 5, 0 }, { 5, 0 }, { 5, 0 }, { 5, 0 } }, parts(z:to_table()), dt)
      z[{ { 1, 5, 2 } }] = -1.5
      assert.same({ { -1.5, 0 }, { 5, 0 }, { -1.5, 0 }, { 5, 0 }, { -1.5, 0 } }, parts(z:to_table()), dt)
      z[{}] = 3
      assert.same({ { 3, 0 }, { 3, 0 }, { 3, 0 }, { 3, 0 }, { 3, 0 } }, parts(z:to_table()), dt)
      assert.same({ { 1, 0 }, { 0, 0 }, { 0, 0 }, { 1, 0 } }, parts(gm.eye(2, { dtype = dt }):reshape(4):to_table()), dt)
    end
    assert.equal("0+0i", tostring(gm.mat(1, { ctype = "complex128" })[1]))
  end)

  it("convert to and from every ctype as NumPy's astype", function()
    local z = gm.asarray({ C(1.5, -2), C(-3, 4), C(0, 1) })
    for ct, c in pairs(core._ctypes) do
      if c.kind ~= "complex" then
        local r = z:as(ct):to_table()
        -- the real part, converted as a float64 of that value is
        local want = gm.asarray({ 1.5, -3, 0 }):as(ct):to_table()
        assert.same(want, r, ct)
        local back = gm.asarray({ 1, 0, 1 }):as(ct):as("complex64"):to_table()
        assert.same({ { 1, 0 }, { 0, 0 }, { 1, 0 } }, parts(back), ct)
      end
    end
    assert.same({ { 1.5, -2 }, { -3, 4 }, { 0, 1 } }, parts(z:as("complex64"):as("complex128"):to_table()))
  end)

  it("compute + - * / == ~= with broadcasting and scalars as NumPy does", function()
    local a = { C(1.5, -2), C(-3, 4), C(0.25, 1), C(2, 0), C(-1, -1), C(0, 0.5) }
    local b = { C(0.5, 1), C(2, -0.75), C(-1, 0) }
    local py = { "import numpy as np" }
    local function arr(name, t)
      local xs = {}
      for i, z in ipairs(t) do xs[i] = ("complex(%.17g,%.17g)"):format(z.re, z.im) end
      py[#py + 1] = ("%s = np.array([%s], dtype=np.complex128)"):format(name, table.concat(xs, ","))
    end
    arr("a", a)
    arr("b", b)
    py[#py + 1] = "a = a.reshape(2, 3)"
    local exprs = { "a + b", "a - b", "a * b", "a / b", "b - a", "a * 2.5", "a / (1-2j)", "(a == b) + 0j",
      "(a != a[0, 0]) + 0j" }
    for _, e in ipairs(exprs) do
      py[#py + 1] = "r = np.ravel(" .. e .. ")"
      py[#py + 1] = "print(' '.join('%r %r' % (float(z.real), float(z.imag)) for z in r))"
    end
    local lines = R.run(table.concat(py, "\n"))
    places(function(place)
      for _, ct in ipairs { "complex64", "complex128" } do
        local A = gm.asarray(a, { dtype = ct }):reshape({ 2, 3 })
        local B = gm.asarray(b, { dtype = ct })
        local got = { A + B, A - B, gm.multiply(A, B), A / B, B - A, A * 2.5, A / C(1, -2), A:eq(B),
          A:ne(A[{ 1, 1 }]) }
        for k, g in ipairs(got) do
          local want = {}
          for w in lines[k]:gmatch("%S+") do want[#want + 1] = tonumber(w) end
          local flat = {}
          for _, row in ipairs(g:to_table()) do for _, v in ipairs(row) do flat[#flat + 1] = v end end
          local what = ("%s %s %s"):format(place, ct, exprs[k])
          if k >= 8 then
            assert.equal("bool", g:dtype(), what)
            for i, v in ipairs(flat) do assert.equal(want[2 * i - 1] == 1, v, what) end
          else
            assert.equal(ct, g:dtype(), what)
            for i, v in ipairs(flat) do close(v, { want[2 * i - 1], want[2 * i] }, ct, what .. "[" .. i .. "]") end
          end
        end
      end
      -- promotion: float32 with complex64 is complex64, float64 with it complex128
      local f32 = gm.asarray({ 1, 2 }, { dtype = "float32" })
      assert.equal("complex64", (f32 + gm.asarray({ C(0, 1), C(1, 0) }, { dtype = "complex64" })):dtype())
      assert.equal("complex128", (gm.asarray({ 1.0, 2.0 }) + gm.zeros({ 2 }, { dtype = "complex64" })):dtype())
      assert.equal("complex64", (f32 + C(0, 1)):dtype())
      assert.equal("complex128", (gm.asarray({ 1, 2 }) + C(0, 1)):dtype())
    end)
  end)

  it("compute the unary functions and predicates as NumPy does", function()
    local a = { C(1, 2), C(-0.5, 0.25), C(0, -1.5), C(2.5, 0), C(-1, -1), C(0.75, -3) }
    local fns = { "negative", "positive", "conj", "square", "reciprocal", "sqrt", "exp", "log", "sin", "cos", "tan",
      "sinh", "cosh", "tanh" }
    local xs = {}
    for i, z in ipairs(a) do xs[i] = ("complex(%.17g,%.17g)"):format(z.re, z.im) end
    local py = { "import numpy as np", ("a = np.array([%s], dtype=np.complex128)"):format(table.concat(xs, ",")) }
    for _, f in ipairs(fns) do
      py[#py + 1] = ("print(' '.join('%%r %%r' %% (float(z.real), float(z.imag)) for z in np.%s(a)))"):format(f)
    end
    local lines = R.run(table.concat(py, "\n"))
    places(function(place)
      for _, ct in ipairs { "complex64", "complex128" } do
        local A = gm.asarray(a, { dtype = ct })
        for k, f in ipairs(fns) do
          local want = {}
          for w in lines[k]:gmatch("%S+") do want[#want + 1] = tonumber(w) end
          local got = gm[f](A)
          local what = ("%s %s %s"):format(place, ct, f)
          assert.equal(ct, got:dtype(), what)
          for i, v in ipairs(got:to_table()) do close(v, { want[2 * i - 1], want[2 * i] }, ct, what .. "[" .. i .. "]") end
        end
        local nan = gm.asarray({ C(0 / 0, 1), C(1, math.huge), C(1, 2), C(0, 0) }, { dtype = ct })
        assert.same({ true, false, false, false }, gm.isnan(nan):to_table())
        assert.same({ false, true, false, false }, gm.isinf(nan):to_table())
        assert.same({ false, false, true, true }, gm.isfinite(nan):to_table())
        assert.same({ false, false, false, true }, gm.logical_not(nan):to_table())
        local x = A:copy()
        x:exp_()
        close(x[1], { math.exp(1) * math.cos(2), math.exp(1) * math.sin(2) }, ct, place .. " exp_")
        close((-A)[1], { -1, -2 }, ct, place .. " unary minus")
      end
    end)
  end)

  it("compute abs, real, imag, sign, pow, expm1, log1p, log2, log10 as NumPy does", function()
    local a = { C(1.5, -2), C(-3, 4), C(0.25, 1), C(2, 0), C(-1, -1), C(0, 0) }
    local b = { C(0.5, 1), C(2, -0.75), C(-1, 0), C(0, 0.5), C(3, 0) }
    local z0, e0 = { C(0, 0), C(0, 0), C(0, 0), C(1, 1) }, { C(0, 0), C(2, 0), C(0, 1), C(0, 0) }
    local exprs = { "np.abs(a)", "np.real(a)", "np.imag(a)", "np.where(a == 0, 0, a / np.where(a == 0, 1, np.abs(a)))",
      "a ** 2", "a5 ** -3", "a5 ** 0.5", "a5 ** b", "np.expm1(a)", "np.log1p(a)", "np.log2(a5)", "np.log10(a5)",
      "z0 ** e0" }
    local lines = numpy_lines(("a = np.array(%s); a5 = a[:5]; b = np.array(%s); z0 = np.array(%s); e0 = np.array(%s)")
      :format(pylist(a), pylist(b), pylist(z0), pylist(e0)), exprs)
    local part = { complex64 = "float32", complex128 = "float64" }
    places(function(place)
      for _, ct in ipairs { "complex64", "complex128" } do
        local A = gm.asarray(a, { dtype = ct })
        local A5, B = A:narrow(1, 1, 5), gm.asarray(b, { dtype = ct })
        local got = { gm.abs(A), gm.real(A), A:imag(), gm.sign(A), A ^ 2, A5 ^ -3, gm.pow(A5, 0.5), A5 ^ B,
          gm.expm1(A), gm.log1p(A), gm.log2(A5), A5:log10(),
          gm.pow(gm.asarray(z0, { dtype = ct }), gm.asarray(e0, { dtype = ct })) }
        for k, g in ipairs(got) do
          local what = ("%s %s %s"):format(place, ct, exprs[k])
          assert.equal(k <= 3 and part[ct] or ct, g:dtype(), what)
          check_values(g, lines[k], ct, what)
        end
        -- hypot-style: the squares of these parts overflow float32
        assert.near(5e30, gm.abs(gm.asarray({ C(3e30, -4e30) }, { dtype = ct }))[1], 5e30 * 1e-6)
      end
      -- of a real mat: real is a copy, imag zeros of its type
      local r = gm.asarray({ 1.5, -2 }, { dtype = "float32" })
      local rr = gm.real(r)
      rr[1] = 7
      assert.same({ 1.5, -2 }, r:to_table())
      assert.same({ 0, 0 }, gm.imag(r):to_table())
      assert.equal("float32", gm.imag(r):dtype())
      assert.equal("complex64", (r ^ C(0, 1)):dtype())
      -- a zero divisor divides the parts by +0 (NumPy's), whatever its sign
      local q = (gm.asarray({ C(1, -1) }) / gm.asarray({ -0.0 }))[1]
      assert.same({ math.huge, -math.huge }, { q.re, q.im })
    end)
  end)

  it("reduce (sum, prod, mean, var, std, cumulative ones, vecdot) as NumPy does", function()
    local m = { C(1, 2), C(-0.5, 0.25), C(0, -1.5), C(2.5, 0), C(-1, -1), C(0.75, -3) }
    local n = { C(0.5, 1), C(2, -0.75), C(-1, 0), C(0, 0.5), C(3, 0), C(1, 1) }
    local exprs = { "m.sum()", "m.sum(axis=0)", "m.sum(axis=1)", "m.prod()", "m.prod(axis=0)", "m.prod(axis=1)",
      "m.mean()", "m.mean(axis=1)", "np.cumsum(m, axis=1)", "np.cumprod(m, axis=1)",
      "np.concatenate(([1], np.cumprod(m.ravel())))", "np.sum(np.conj(m) * n, axis=-1)", "np.vdot(m[0], n[0])",
      "m.var()", "m.var(axis=1)", "m.std(axis=0, ddof=1, keepdims=True)", "m.std()" }
    local lines = numpy_lines(("m = np.array(%s).reshape(2, 3); n = np.array(%s).reshape(2, 3)"):format(pylist(m),
      pylist(n)), exprs)
    places(function(place)
      for _, ct in ipairs { "complex64", "complex128" } do
        local M = gm.asarray(m, { dtype = ct }):reshape({ 2, 3 })
        local N = gm.asarray(n, { dtype = ct }):reshape({ 2, 3 })
        local got = { M:sum(), M:sum(1), gm.sum(M, { axis = 2 }), M:prod(), gm.prod(M, 1), M:prod(2), gm.mean(M),
          M:mean(2), gm.cumulative_sum(M, { axis = 2 }), M:cumprod(2),
          gm.cumulative_prod(M:reshape({ 6 }), { include_initial = true }), gm.vecdot(M, N),
          gm.vecdot(M[{ 1, {} }], N[{ 1, {} }]), M:var(), gm.var(M, 2),
          M:std(1, { unbiased = true, keepdims = true }), gm.std(M) }
        local real = ct == "complex64" and "float32" or "float64"
        for k, g in ipairs(got) do
          local what = ("%s %s %s"):format(place, ct, exprs[k])
          if gm.iscomplex(g) then assert.is_true(k == 1 or k == 4 or k == 7 or k == 13, what)
          elseif type(g) == "number" then assert.is_true(k == 14 or k == 17, what) -- var/std: real
          else assert.equal(k >= 14 and real or ct, g:dtype(), what) end
          check_values(g, lines[k], ct, what)
        end
        assert.same({ 2, 1 }, M:sum(2, { keepdims = true }):dims())
        assert.same({ 1, 3 }, M:prod(1, { keepdims = true }):dims())
        assert.equal("1+0i", tostring(gm.zeros({ 0 }, { dtype = ct }):prod()))
        assert.equal("1.5+0i", tostring(gm.range(0, 3, 0.5, { ctype = ct })[4]))
        -- a 1-d mat reduced along its axis is rank 0, as the real reductions
        assert.same({}, M[{ 1, {} }]:prod(1):dims())
      end
    end)
  end)

  it("multiply matrices (matmul, *, gemm_, batched) as NumPy does", function()
    local x = { C(1, 2), C(-0.5, 0.25), C(0, -1.5), C(2.5, 0), C(-1, -1), C(0.75, -3) }
    local y = { C(0.5, 1), C(2, -0.75), C(-1, 0), C(0, 0.5), C(3, 0), C(1, 1) }
    local p, q = {}, {}
    for i = 1, 12 do
      p[i] = C(i % 5 - 2, (i * 7) % 3 - 1)
      q[i] = C((i * 3) % 4 - 1.5, i % 2)
    end
    local exprs = { "x @ y", "p @ q", "x @ y[:, 0]", "2 * (x @ y) + 0.5 * c", "xr @ y" }
    local lines = numpy_lines(("x = np.array(%s).reshape(2, 3); y = np.array(%s).reshape(3, 2); " ..
      "p = np.array(%s).reshape(2, 2, 3); q = np.array(%s).reshape(2, 3, 2); c = np.array([[1j, 2], [-1, 1 - 1j]]); " ..
      "xr = x.real.copy()"):format(pylist(x), pylist(y), pylist(p), pylist(q)), exprs)
    places(function(place)
      for _, ct in ipairs { "complex64", "complex128" } do
        local X = gm.asarray(x, { dtype = ct }):reshape({ 2, 3 })
        local Y = gm.asarray(y, { dtype = ct }):reshape({ 3, 2 })
        local P = gm.asarray(p, { dtype = ct }):reshape({ 2, 2, 3 })
        local Q = gm.asarray(q, { dtype = ct }):reshape({ 2, 3, 2 })
        local c = gm.asarray({ C(0, 1), C(2, 0), C(-1, 0), C(1, -1) }, { dtype = ct }):reshape({ 2, 2 })
        local got = { X * Y, P * Q, gm.matmul(X, Y[{ {}, 1 }]), gm.gemm_(2, X, Y, 0.5, c),
          gm.matmul(gm.real(X), Y) }
        for k, g in ipairs(got) do
          local what = ("%s %s %s"):format(place, ct, exprs[k])
          assert.equal(ct, g:dtype(), what)
          check_values(g, lines[k], ct, what)
        end
      end
    end)
  end)

  it("move elements in the indexing functions; ordering ones refuse", function()
    places(function(place)
      for _, ct in ipairs { "complex64", "complex128" } do
        local v = gm.asarray({ C(1, 2), C(3, 4), C(5, 6), C(7, 8) }, { dtype = ct })
        local mask = gm.asarray({ true, false, true, false })
        assert.same({ { 5, 6 }, { 1, 2 } }, parts(gm.take(v, { 3, 1 }):to_table()), place)
        assert.same({ { 1, 2 }, { 5, 6 } }, parts(v[mask]:to_table()), place)
        assert.same({ { 1, 2 }, { 5, 6 } }, parts(v:masked_select(mask):to_table()), place)
        local w = v:copy()
        w[gm.asarray({ 2, 4 })] = C(0, -1)
        w[mask] = 9
        assert.same({ { 9, 0 }, { 0, -1 }, { 9, 0 }, { 0, -1 } }, parts(w:to_table()), place)
        local z = gm.zeros({ 2 }, { dtype = ct })
        z:index_add_(1, { 1, 1, 2 }, v:narrow(1, 1, 3))
        assert.same({ { 4, 6 }, { 5, 6 } }, parts(z:to_table()), place)
        local g = gm.asarray({ { C(1, 1), C(2, 2) }, { C(3, 3), C(4, 4) } }, { dtype = ct })
        assert.same({ { 2, 2 }, { 3, 3 } }, parts(g:gather(2, gm.asarray({ { 2 }, { 1 } })):reshape({ 2 }):to_table()))
        assert.same({ { 7, 8 }, { 5, 6 }, { 3, 4 }, { 1, 2 } }, parts(gm.flip(v):to_table()), place)
        assert.same({ { 1, 2 }, { 3, 4 }, { 5, 6 }, { 7, 8 }, { 1, 2 } },
          parts(gm.concat({ v, v:narrow(1, 1, 1) }):to_table()), place)
        local ok, e = pcall(gm.scatter_reduce, v, 1, gm.asarray({ 1 }), v:narrow(1, 1, 1), "amax")
        assert.is_false(ok)
        assert.matches("'scatter_reduce'.*amax.*no order", tostring(e))
      end
    end)
  end)

  it("save and load .npy '<c8' / '<c16' files that NumPy reads and writes", function()
    local p1, p2 = os.tmpname(), os.tmpname()
    gm.asarray({ { C(1, 2), C(-3.5, 0.25) } }, { dtype = "complex64" }):save_npy(p1)
    local lines = R.run(([[
import numpy as np
x = np.load(%q)
print(x.dtype, x.shape, ' '.join('%%r %%r' %% (float(z.real), float(z.imag)) for z in x.ravel()))
np.save(%q, np.array([1 - 2j, 0.5j], dtype=np.complex128))]]):format(p1, p2))
    assert.equal("complex64 (1, 2) 1.0 2.0 -3.5 0.25", lines[1])
    local y = gm.load_npy(p2 .. ".npy")
    assert.equal("complex128", y:dtype())
    assert.same({ { 1, -2 }, { 0, 0.5 } }, parts(y:to_table()))
    os.remove(p1)
    os.remove(p2)
    os.remove(p2 .. ".npy")
  end)

  it("gm.complex values compute and print", function()
    local z = C(1, 2)
    assert.equal("1+2i", tostring(z))
    assert.equal("1-2i", tostring(C(1, -2)))
    assert.equal("2+2i", tostring(z + 1))
    assert.equal("0+2i", tostring(1 - (-z + 1) - 1 + C(0, 0)))
    assert.equal("3-2i", tostring(4 - z - C(0, 0) + C(0, 0)))
    assert.equal("-3+4i", tostring(z * z))
    assert.equal("-0.2+0.4i", tostring(z / C(3, -4)))
    assert.equal("0.5+1i", tostring(z / 2))
    assert.is_true(z == C(1, 2))
    assert.is_false(z == C(1, -2))
    assert.is_true(gm.iscomplex(z))
    assert.is_false(gm.iscomplex(1))
    assert.has_error(function() return z + "x" end, "bad argument #2 to '__add' (gm.complex or number expected, got string)")
    assert.has_error(function() gm.complex("1") end, "bad argument #1 to 'complex' (number expected, got string)")
  end)

  it("follow the standard's dtype rules", function()
    assert.equal("complex64", gm.result_type("float32", "complex64"))
    assert.equal("complex128", gm.result_type("float64", "complex64"))
    assert.equal("complex64", gm.result_type("float32", C(0, 1)))
    assert.equal("complex128", gm.result_type("int8", C(0, 1)))
    assert.is_true(gm.isdtype("complex64", "complex floating"))
    assert.is_false(gm.isdtype("complex64", "real floating"))
    assert.equal("float32", gm.finfo("complex64").dtype)
    assert.equal("float64", gm.finfo(gm.zeros({ 1 }, { dtype = "complex128" })).dtype)
  end)

  it("refuse, with the function's name, what complex numbers do not have", function()
    local m = gm.asarray({ C(1, 2), C(3, 4) })
    local function err(f, ...)
      local ok, e = pcall(f, ...)
      assert.is_false(ok)
      return tostring(e)
    end
    assert.matches("sort'.*complex", err(gm.sort, m))
    assert.matches("lt is not defined for complex numbers", err(m.lt, m, m))
    assert.matches("cmax is not defined for complex numbers", err(gm.maximum, m, m))
    assert.matches("'argmax'.*complex", err(gm.argmax, m))
    assert.matches("'max'.*complex", err(m.max, m))
    assert.matches("'signbit'.*complex", err(gm.signbit, m))
    assert.matches("'floor'.*complex", err(gm.floor, m))
    assert.matches("'abs_'.*complex", err(gm.abs_, m))
    assert.matches("'argsort'.*complex", err(gm.argsort, m))
    assert.matches("'nonzero'.*complex", err(gm.nonzero, m))
    assert.matches("'quantile'.*complex", err(gm.quantile, m, 0.5))
    assert.matches("'median'.*complex", err(gm.median, m))
    -- where a complex mat is needed, a real one is refused
    assert.matches("complex_part.*float64 mat, complex expected",
      err(core._complex_part, gm.asarray({ 1.0 }), 0, gm.asarray({ 1.0 }), false))
    -- a part past int's range is refused, not wrapped to 0
    assert.matches("'_complex_part'.*part 4294967296 %(0 or 1 expected%)",
      err(core._complex_part, m, 2 ^ 32 // 1, gm.zeros({ 3 }), false))
    assert.matches("'abs'.*options are not taken", err(gm.abs, m, { out = m }))
    assert.matches("'prod'.*dtype float64.*complex", err(m.prod, m, nil, { dtype = "float64" }))
  end)
end)
