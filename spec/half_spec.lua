-- float16 and bfloat16 mats (docs/API.md "Half mats"): storage types
-- computed in float32 and rounded to nearest even on store.  References
-- from NumPy (float16 is NumPy's; bfloat16 is float32 rounded to its top
-- 16 bits in Python), one python3 per group, on the host and the emulated
-- device.
local gm = require "gpumat"
local core = require "gpumat.core"
local R = require "numpy_ref"
local places = require("blas_ref").places

local HALVES = { "float16", "bfloat16" }

-- the Python side: exact rounding of a float64 to p significant bits
-- (rnd), and of float32 arrays to each half type (H)
local PRELUDE = [[
import numpy as np, math
from fractions import Fraction as F
FMT = {'float16': (11, -14, 65504.0), 'bfloat16': (8, -126, (2 - 2.0 ** -7) * 2.0 ** 127)}
def rnd(t, x):
    p, emin, top = FMT[t]
    if x != x or x == 0 or math.isinf(x): return x
    a = F(abs(x)); e = max(math.frexp(abs(x))[1] - 1, emin); q = F(2) ** (e - p + 1)
    n = math.floor(a / q); r = a / q - n
    if r > F(1, 2) or (r == F(1, 2) and n % 2 == 1): n += 1
    v = n * q
    return math.copysign(math.inf if v > top else float(v), x)
def bf(x):
    x = np.asarray(x, dtype=np.float32)
    u, s = x.view(np.uint32).astype(np.uint64), np.uint64(16)
    r = (((u + np.uint64(0x7fff) + ((u >> s) & np.uint64(1))) >> s) << s).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), x, r)
def H(t, x):
    x = np.asarray(x, dtype=np.float32)
    return x.astype(np.float16).astype(np.float32) if t == 'float16' else bf(x)
def out(r): print(' '.join(repr(float(v)) for v in np.ravel(r)))
]]

local function nums(line)
  local t = {}
  for w in line:gmatch("%S+") do
    t[#t + 1] = tonumber(w) or (w == "inf" and math.huge) or (w == "-inf" and -math.huge) or (0 / 0)
  end
  return t
end

local function pylist(t)
  local s = {}
  for i, x in ipairs(t) do
    s[i] = x ~= x and "float('nan')" or x == math.huge and "float('inf')" or x == -math.huge and "-float('inf')"
        or (x == 0 and 1 / x < 0) and "-0.0" or ("%.17g"):format(x)
  end
  return "[" .. table.concat(s, ",") .. "]"
end

-- got within the type's relative tolerance (ctype list column) of want
local function close(got, want, ct, what)
  assert.equal(#want, #got, what)
  local tol = core._ctypes[ct].tol
  for i = 1, #want do
    local g, w = got[i], want[i]
    local ok = (g ~= g and w ~= w) or g == w or math.abs(g - w) <= tol * math.max(1, math.abs(w))
    assert(ok, ("%s [%d]: expected %.17g, got %.17g"):format(what, i, w, g))
  end
end

describe("half mats", function()
  it("are made, read, written and printed; finfo", function()
    for _, ct in ipairs(HALVES) do
      local m = gm.zeros({ 2, 3 }, { dtype = ct })
      assert.equal(ct, m:dtype())
      m[1] = 0.1
      m[{ 2, 3 }] = 3
      assert.same({ { 1, 1 } }, gm.ones({ 1, 2 }, { dtype = ct }):to_table())
      assert.same({ 2.5, 2.5 }, gm.full({ 2 }, 2.5, { dtype = ct }):to_table())
      local a = gm.asarray({ 1, -2.5, 1 / 3 }, { dtype = ct })
      assert.equal(ct, a:dtype())
      assert.equal(ct == "float16" and 0.333251953125 or 0.333984375, a[3]) -- 1/3 rounded
      local m2 = m:to_table()
      assert.equal(3, m2[2][3])
      assert.equal(ct == "float16" and 0.0999755859375 or 0.10009765625, m2[1][1])
      assert.matches("^#<MAT 2x3 " .. ct .. " %u+ {{0%.1, 0, 0}, {0, 0, 3}}>$", tostring(m))
      local fi = gm.finfo(ct)
      assert.equal(ct == "float16" and 65504 or 3.3895313892515355e38, fi.max)
      assert.equal(ct == "float16" and 2 ^ -10 or 2 ^ -7, fi.eps)
    end
  end)

  it("round float64 values to nearest even on conversion, and convert to and from every ctype", function()
    local xs = { 0.1, 1 / 3, -2.5, 65504, 65519.99, 65520, 1e5, 6e-8, 2.9e-8, 3e-8, 1e-40, -0.0, 1 + 2 ^ -11,
      1 + 3 * 2 ^ -11, 257, 259, 3.3961e38, math.huge, -math.huge }
    local py = { PRELUDE, "xs = " .. pylist(xs) }
    for _, ct in ipairs(HALVES) do py[#py + 1] = ("out([rnd(%q, x) for x in xs])"):format(ct) end
    local lines = R.run(table.concat(py, "\n"))
    for k, ct in ipairs(HALVES) do
      local want = nums(lines[k])
      places(function(place)
        assert.same(want, gm.asarray(xs, { dtype = "float64" }):astype(ct):to_table(), place .. " " .. ct)
        -- element writes round the same way
        local e = gm.zeros({ #xs }, { dtype = ct })
        for i, x in ipairs(xs) do e[i] = x end
        assert.same(want, e:to_table(), ct .. " element writes")
        e:fill_(xs[1]) -- fills round the same way
        assert.same(want[1], e[#xs], place .. " " .. ct .. " fill_")
      end)
      local nan = gm.asarray({ 0 / 0 }):astype(ct)[1]
      assert.is_true(nan ~= nan)
      -- every ctype and back: small integers and halves are exact in all
      for other, c in pairs(core._ctypes) do
        local v = c.kind == "bool" and { 1, 0, 1 } or (c.kind == "uint" and { 1, 0, 3 } or { 1.5, -3, 0 })
        if c.kind == "int" then v = { 1, -3, 0 } end
        local h = gm.asarray(v, { dtype = "float64" }):astype(ct)
        local want = gm.asarray(v, { dtype = "float64" }):astype(other)
        local got = h:astype(other)
        assert.equal(c.dtype, got:dtype())
        assert.same(R.flat(want), R.flat(got), ct .. " -> " .. other)
        assert.same(R.flat(h), R.flat(want:astype(ct)), other .. " -> " .. ct)
      end
      -- a uint64 above 2^63 rounds once (no double rounding)
      local u = gm.asarray({ -1 }, { dtype = "int64" }):astype("uint64"):astype(ct)[1]
      assert.equal(ct == "float16" and math.huge or 2 ^ 64, u)
    end
  end)

  it("compute arithmetic, comparisons, functions and reductions in float32, rounded as NumPy's float16", function()
    local av = { 0.1, -1.25, 2.75, 1 / 3, -0.7, 3.5 }
    local bv = { 0.3, -2, 0.45 }
    local exprs = { "a + b", "a - b", "a * b", "a / b", "a + 0.1", "2.5 * a", "np.exp(a)", "np.log(np.abs(a))",
      "np.sqrt(np.abs(a))", "np.sin(a)", "np.tanh(a)", "np.abs(a)", "-a", "np.arctan2(a, b)", "np.maximum(a, b)",
      "np.clip(a, -1, 1)", "np.where(a > 0, a, b)", "(a > b) + 0", "(a == a) + 0", "np.sum(a)", "np.sum(a, axis=0)",
      "np.prod(a, axis=1)", "np.mean(a, axis=1)", "np.max(a)", "np.min(a, axis=0)", "np.argmax(a, axis=1)" }
    local py = { PRELUDE, "A = np.array(" .. pylist(av) .. ").reshape(2, 3)", "B = np.array(" .. pylist(bv) .. ")" }
    for _, ct in ipairs(HALVES) do
      py[#py + 1] = ("a, b = H(%q, A), H(%q, B)"):format(ct, ct)
      for _, e in ipairs(exprs) do
        -- float32 arithmetic (scalars rounded to the half type first), result rounded
        local pe = e:gsub("0%.1", ("H(%q, 0.1)"):format(ct))
        py[#py + 1] = ("r = np.asarray(%s); out(r if r.dtype.kind in 'biu' else H(%q, r))"):format(pe, ct)
      end
    end
    local lines = R.run(table.concat(py, "\n"))
    assert.equal(2 * #exprs, #lines)
    places(function(place)
      for k, ct in ipairs(HALVES) do
        local a = gm.asarray(av, { dtype = ct }):reshape({ 2, 3 })
        local b = gm.asarray(bv, { dtype = ct })
        local got = { a + b, a - b, gm.multiply(a, b), a / b, a + 0.1, 2.5 * a, gm.exp(a), gm.log(gm.abs(a)), gm.sqrt(gm.abs(a)),
          gm.sin(a), gm.tanh(a), gm.abs(a), -a, gm.atan2(a, b), gm.maximum(a, b), gm.clip(a, -1, 1),
          gm.where(a:gt(0), a, b), a:gt(b), a:eq(a), gm.sum(a), gm.sum(a, { axis = 1 }),
          gm.prod(a, { axis = 2 }), gm.mean(a, { axis = 2 }), gm.max(a), gm.min(a, { axis = 1 }),
          gm.argmax(a, { axis = 2 }) }
        for i, g in ipairs(got) do
          local what = ("%s %s %s"):format(place, ct, exprs[i])
          local want = nums(lines[(k - 1) * #exprs + i])
          if type(g) == "userdata" then
            local d = g:dtype()
            if i == 18 or i == 19 then
              assert.equal("bool", d, what)
              g = g:astype("int64")
            elseif i == 26 then
              assert.equal("int64", d, what)
              want = { want[1] + 1, want[2] + 1 } -- gpumat's indices are 1-based
            else
              assert.equal(ct, d, what)
            end
          end
          close(R.flat(g), want, ct, what)
        end
        -- in place: the rounding on store
        local x = a:copy()
        x:exp_()
        close(R.flat(x), R.flat(gm.exp(a)), ct, place .. " exp_")
        assert.same({ false, true }, gm.isnan(gm.asarray({ 1, 0 / 0 }, { dtype = ct })):to_table())
      end
    end)
  end)

  it("nextafter steps one ulp of the half type: NumPy's float16 nextafter, bfloat16 by its bits", function()
    -- zeros both ways, subnormals, powers of two both ways (the spacing
    -- halves below), the largest finite value to infinity and back,
    -- infinities, NaN, equal operands (b, as the standard and C say: -0
    -- toward 0 gives 0; NumPy 1's float16 gave a, NumPy 2's gives b, so
    -- the reference takes b there whichever NumPy runs it)
    local av = { 0, -0.0, 1, 1, 2, 2, 65504, 65504, 1 / 0, -1 / 0, 6e-8, 2 ^ -14, 2 ^ -14, 0 / 0, 3, 3, -2, 0.1,
      -0.0, 1e-3, -7.25, 3e38, 1e-39 }
    local bv = { 1, -1, 2, 0, 0, 3, 1 / 0, 0, 0, 0, 0, 0, 1, 1, 0 / 0, 3, -3, -5, 0, 1, 0, 1 / 0, 0 }
    local lines = R.run(table.concat({ PRELUDE,
      "a, b = np.array(" .. pylist(av) .. "), np.array(" .. pylist(bv) .. ")",
      "a16, b16 = a.astype(np.float16), b.astype(np.float16)",
      "with np.errstate(all='ignore'): out(np.where(a16 == b16, b16, np.nextafter(a16, b16)))",
      "def bnext(x, y):", -- bfloat16 by its 16 bits (the upper half of a float32)
      "    if x != x or y != y: return float('nan')",
      "    if x == y: return y",
      "    u = int(np.float32(x).view(np.uint32)) >> 16",
      "    if x == 0: u = (0x8000 if y < 0 else 0) | 1",
      "    else: u = u + 1 if (x < y) == (x > 0) else u - 1",
      "    return float(np.uint32(u << 16).view(np.float32))",
      "out([bnext(x, y) for x, y in zip(H('bfloat16', a), H('bfloat16', b))])",
    }, "\n"))
    assert.equal(2, #lines)
    places(function(place)
      for k, ct in ipairs(HALVES) do
        local got = R.flat(gm.nextafter(gm.asarray(av, { dtype = ct }), gm.asarray(bv, { dtype = ct })))
        local want = nums(lines[k])
        assert.equal(#want, #got)
        for i = 1, #want do
          local g, w = got[i], want[i]
          -- bit for bit: the sign of a zero too
          local ok = (g ~= g and w ~= w) or (g == w and (g ~= 0 or 1 / g == 1 / w))
          assert(ok, ("%s %s nextafter(%.9g, %.9g): expected %.17g, got %.17g"):format(place, ct, av[i], bv[i], w, g))
        end
      end
      -- a Lua number as b (rounded to the type first) and a broadcast row
      local h = gm.asarray({ { 1, 2 }, { -3, 0 } }, { dtype = "float16" })
      assert.same({ { 0.99951171875, 1.9990234375 }, { -2.998046875, 0 } }, gm.nextafter(h, 0.0):to_table())
      assert.same({ { 1.0009765625, 1.9990234375 }, { -2.998046875, -5.9604644775390625e-08 } },
        gm.nextafter(h, gm.asarray({ 5, -5 }, { dtype = "float16" })):to_table())
    end)
  end)

  it("multiply matrices accumulating in float32", function()
    local av, bv = R.vals(12, 3), R.vals(20, 5)
    for i = 1, #av do av[i] = av[i] + 0.1 * i end
    local py = { PRELUDE, "A = np.array(" .. pylist(av) .. ").reshape(3, 4)",
      "B = np.array(" .. pylist(bv) .. ").reshape(4, 5)" }
    for _, ct in ipairs(HALVES) do
      py[#py + 1] = ("a, b = H(%q, A), H(%q, B); out(H(%q, a @ b)); out(H(%q, 2 * (a @ b) + 0.5 * H(%q, np.ones((3, 5)))))")
          :format(ct, ct, ct, ct, ct)
    end
    local lines = R.run(table.concat(py, "\n"))
    places(function(place)
      for k, ct in ipairs(HALVES) do
        local a = gm.asarray(av, { dtype = ct }):reshape({ 3, 4 })
        local b = gm.asarray(bv, { dtype = ct }):reshape({ 4, 5 })
        local c = gm.matmul(a, b)
        assert.equal(ct, c:dtype())
        close(R.flat(c), nums(lines[2 * k - 1]), ct, place .. " " .. ct .. " matmul")
        local d = gm.ones({ 3, 5 }, { dtype = ct })
        d:gemm_(2, a, b, 0.5)
        close(R.flat(d), nums(lines[2 * k]), ct, place .. " " .. ct .. " gemm_")
      end
    end)
  end)

  it("sort, search, scan, index, fill and run BLAS level 1 as their float32 copies do, rounded once", function()
    -- NumPy anchors (float16): sort, argsort, cumsum accumulated in float32, dot
    local av = { 0.1, -1.25, 2.75, 1 / 3, -0.7, 3.5, 0 / 0, -0.0 }
    local lines = R.run(table.concat({ PRELUDE, "a = np.array(" .. pylist(av) .. ", dtype=np.float16).reshape(2, 4)",
      "out(np.sort(a, axis=1)); out(np.argsort(a, axis=1, kind='stable') + 1)",
      "out(np.cumsum(a.astype(np.float32), axis=1).astype(np.float16))",
      "out(np.dot(a[0].astype(np.float32), a[0].astype(np.float32)).astype(np.float16))" }, "\n"))
    -- a result's mats (nonzero gives a list) as flat lists, NaN as "nan"
    local function flat(r)
      local ms, t = type(r) == "table" and r or { r }, {}
      for _, m in ipairs(ms) do
        for _, v in ipairs(R.flat(m)) do t[#t + 1] = v ~= v and "nan" or v end
      end
      return t
    end
    -- on the pass's device only (the passes cover host and emulated): cheap
    -- under the aggressive-collector pass
    local place = os.getenv("GPUMAT_DEVICE") or "host"
    do
      local h = gm.asarray(av, { dtype = "float16" }):reshape({ 2, 4 })
      close(R.flat(gm.sort(h)), nums(lines[1]), "float16", place .. " sort")
      assert.same(nums(lines[2]), R.flat(gm.argsort(h)), place .. " argsort")
      close(R.flat(gm.cumulative_sum(h, { axis = 2 })), nums(lines[3]), "float16", place .. " cumulative_sum")
      close({ gm.dot(h[{ 1, {} }], h[{ 1, {} }]) }, nums(lines[4]), "float16", place .. " dot")
      -- every op on each half type: its float32 copy's result rounded to the
      -- type (the very values for the ops that only order or move them;
      -- quantile's arithmetic rounds each step, as NumPy's float16 does)
      for _, ct in ipairs(HALVES) do
        local x = gm.asarray(av, { dtype = ct }):reshape({ 2, 4 })
        local f = x:astype("float32")
        local idx, mask = gm.asarray({ 2, 1, 2 }):as("int64"), x:gt(0)
        local two = gm.asarray({ { 1, 1 }, { 2, 2 } }):as("int64")
        local ops = {
          sort = function(m) return gm.sort(m, { descending = true }) end,
          topk = function(m) return gm.topk(m, 2) end,
          unique_all = function(m) return gm.unique_all(m) end,
          searchsorted = function(m, sm) return gm.searchsorted(sm, m) end,
          median = function(m) return gm.median(m, { axis = 2 }) end,
          nanquantile = function(m) return gm.nanquantile(m, 0.75, { axis = 2 }) end,
          cumulative_sum = function(m) return gm.cumulative_sum(m, { axis = 2, include_initial = true }) end,
          cummax = function(m) return gm.cummax(m, { axis = 2 }) end,
          take = function(m) return gm.take(m, idx, { axis = 2 }) end,
          mask = function(m) return m[mask] end,
          nonzero = function(m) return gm.nonzero(m) end,
          scatter_add_ = function(m) return m:copy():scatter_add_(2, two, m[{ {}, { 2, 3 } }]) end,
          set = function(m)
            local y = m:copy()
            y[{ 2, idx }] = 0.1
            return y
          end,
        }
        local sx = gm.asarray({ -1, 0.5, 2, 4 }, { dtype = ct })
        for name, op in pairs(ops) do
          local got, want = { op(x, sx) }, { op(f, sx:astype("float32")) }
          local what = place .. " " .. ct .. " " .. name
          assert.equal(#want, #got, what)
          for i = 1, #want do
            local w, g = want[i], got[i]
            local one = type(w) == "table" and w[1] or w
            if one:dtype() == "float32" then
              assert.equal(ct, g:dtype(), what)
              w = w:astype(ct)
            end
            if name:match("quantile") then close(R.flat(g), R.flat(w), ct, what) else assert.same(flat(w), flat(g), what) end
          end
        end
        assert.same({ 0, 0.5, 1, 1.5 }, R.flat(gm.range(0, 1.5, 0.5, { ctype = ct })), ct .. " range")
        -- BLAS level 1: float32 sums, the number rounded as the type
        local v, w, fv = x[{ 1, {} }], x[{ 2, {} }], f[{ 1, {} }]:copy()
        local function rounded(n) return gm.asarray({ n }):astype(ct)[1] end
        assert.equal(rounded(gm.dot(fv, fv, { n = 3 })), gm.dot(v, v, { n = 3 }), ct .. " dot")
        assert.equal(rounded(gm.asum(fv, { n = 3 })), gm.asum(v, { n = 3 }), ct .. " asum")
        assert.equal(rounded(gm.nrm2(fv, { n = 3 })), gm.nrm2(v, { n = 3 }), ct .. " nrm2")
        local y, yf = w:copy(), f[{ 2, {} }]:copy()
        gm.axpy_(0.5, v, y)
        gm.axpy_(0.5, fv, yf)
        assert.same(flat(yf:astype(ct)), flat(y), ct .. " axpy_")
        y = v:copy()
        gm.scal_(2, y, { n = 2, incx = 3 })
        assert.same({ 2 * x[{ 1, 1 }], -1.25, 2.75, 2 * x[{ 1, 4 }] }, R.flat(y), ct .. " scal_")
        -- random fills: the float32 fill's draws rounded, below the limit
        local below = ct == "float16" and 1 - 2 ^ -11 or 1 - 2 ^ -8
        for _, fill in ipairs({ "uniform_random_", "gaussian_random_" }) do
          local hm, fm = gm.mat(32, { ctype = ct }), gm.mat(32, { ctype = "float" })
          gm.seed(7)
          hm[fill](hm)
          gm.seed(7)
          fm[fill](fm)
          local want = fm:astype(ct)
          if fill == "uniform_random_" then
            want = gm.minimum(fm, below):astype(ct)
            assert.is_true(gm.max(hm) <= below, ct .. " uniform below 1")
          end
          assert.same(R.flat(want), R.flat(hm), place .. " " .. ct .. " " .. fill)
        end
      end
    end
  end)

  it("promote as the standard says and save float16 .npy files", function()
    assert.equal("float32", gm.result_type("float16", "float32"))
    assert.equal("float32", gm.result_type("float16", "bfloat16"))
    assert.equal("float16", gm.result_type("float16", "int8"))
    assert.equal("float16", gm.result_type("float16", 1.5))
    local h = gm.asarray({ 1, 2 }, { dtype = "float16" })
    assert.equal("float32", (h + gm.asarray({ 1, 2 }, { dtype = "float32" })):dtype())
    assert.equal("float32", (h + gm.asarray({ 1, 2 }, { dtype = "bfloat16" })):dtype())
    assert.equal("float16", (h + gm.asarray({ 1, 2 }, { dtype = "int8" })):dtype())
    assert.equal("float16", (h * 0.5):dtype())
    assert.equal("float64", (h + gm.asarray({ 1, 2 }, { dtype = "int32" })):dtype())
    local p1, p2 = os.tmpname(), os.tmpname()
    gm.asarray({ { 0.1, -2 } }, { dtype = "float16" }):save_npy(p1)
    local lines = R.run(([[
import numpy as np
x = np.load(%q)
print(x.dtype, x.shape, ' '.join(repr(float(v)) for v in x.ravel()))
np.save(%q, np.array([1.5, 65504, np.inf], dtype=np.float16))]]):format(p1, p2))
    assert.equal("float16 (1, 2) 0.0999755859375 -2.0", lines[1])
    local y = gm.load_npy(p2 .. ".npy")
    assert.equal("float16", y:dtype())
    assert.same({ 1.5, 65504, math.huge }, y:to_table())
    assert.has_error(function() gm.asarray({ 1 }, { dtype = "bfloat16" }):save_npy(p1) end,
      "save_npy: a bfloat16 mat has no .npy dtype; save m:astype(\"float32\") (exact) instead")
    os.remove(p1)
    os.remove(p2)
    os.remove(p2 .. ".npy")
    -- LAPACK-backed linalg refuses by name (NumPy's linalg refuses float16 too)
    assert.has_error(function() gm.linalg.inv(gm.eye(2, { dtype = "float16" })) end, "bad argument #1 to 'inv' " ..
      "(a float16 mat; this function takes float32/float64 mats (convert with m:as(\"float64\")))")
  end)
end)
