-- gm.fft (docs/API.md "gm.fft"): every function of the standard's FFT
-- extension against NumPy (one python3 per group; NumPy 1.24 returns
-- complex128 for every input, so complex64 results are compared with
-- float32's tolerance), small sizes with prime and non-power-of-two
-- lengths, both precisions, every norm, n padding and truncation, axes,
-- and the refusals naming gm.fft.NAME.  Runs where the mats live: on the
-- host, and with GPUMAT_DEVICE=emulated through the cuFFT shim.
local gm = require "gpumat"
local R = require "numpy_ref"

local C = gm.complex
-- spec/helper.lua runs every test inside a device context then: the
-- results must be made there (facet "C"), not on the host
local ON_DEVICE = (os.getenv("GPUMAT_DEVICE") or "") ~= ""

-- deterministic complex values as {re, im} pairs
local function cvals(n, seed)
  local v, out = R.vals(2 * n, seed), {}
  for i = 1, n do out[i] = { v[2 * i - 1], v[2 * i] } end
  return out
end

local function py_complex(t)
  local s = {}
  for i, z in ipairs(t) do s[i] = ("complex(%.17g,%.17g)"):format(z[1], z[2]) end
  return "np.array([" .. table.concat(s, ",") .. "])"
end

local function py_real(t)
  local s = {}
  for i, x in ipairs(t) do s[i] = ("%.17g"):format(x) end
  return "np.array([" .. table.concat(s, ",") .. "])"
end

local function shape(dims)
  local s = {}
  for i, d in ipairs(dims) do s[i] = tostring(d) end
  return "(" .. table.concat(s, ",") .. ",)"
end

local function cmat(t, dims, dt)
  local zs = {}
  for i, z in ipairs(t) do zs[i] = C(z[1], z[2]) end
  return gm.asarray(zs, { dtype = dt }):reshape(dims)
end

local function rmat(t, dims, dt) return gm.asarray(t, { dtype = dt }):reshape(dims) end

-- NumPy's results of the expressions, each {dims, {re1, im1, re2, ...}}:
-- the values read back as one Lua chunk per result (few allocations: the
-- gc-aggressive pass collects at every one)
local HEAD = table.concat({
  "import numpy as np",
  "def out(r):",
  "    r = np.asarray(r).astype(np.complex128)",
  "    print(' '.join(map(str, r.shape)) + '|' + ','.join('%r,%r' % (float(z.real), float(z.imag)) for z in r.ravel()))",
}, "\n")

local function numpy(defs, exprs)
  local src = { HEAD }
  for _, d in ipairs(defs) do src[#src + 1] = d end
  for _, e in ipairs(exprs) do src[#src + 1] = "out(" .. e .. ")" end
  local lines = R.run(table.concat(src, "\n"))
  assert(#lines == #exprs, "python gave " .. #lines .. " results for " .. #exprs .. " expressions")
  local res = {}
  for k, line in ipairs(lines) do
    local sh, vals = line:match("^(.-)|(.*)$")
    local dims = {}
    for d in sh:gmatch("%d+") do dims[#dims + 1] = tonumber(d) end
    res[k] = { dims, assert(load("return {" .. vals .. "}", "numpy", "t", {}))() }
  end
  return res
end

local TOL = { complex64 = 2e-5, float32 = 2e-5, complex128 = 1e-12, float64 = 1e-12 }

-- the real and imaginary parts of a mat as flat float64 mats (parts are
-- compared where the mats live, with no Lua value per element)
local function parts(m)
  local n = m:size()
  if not m:dtype():match("complex") then return m:as("float64"):reshape(n), gm.zeros({ n }) end
  return m:as("float64"):reshape(n), (m * C(0, -1)):as("float64"):reshape(n)
end

-- got (a mat) equals want ({dims, values}) within dtype's tolerance,
-- scaled by the largest modulus of want
local function check(got, want, dtype, what)
  assert.equal(dtype, got:dtype(), what)
  assert.same(want[1], got:dims(), what)
  local v, re, im, big = want[2], {}, {}, 1
  for i = 1, #v // 2 do
    re[i], im[i] = v[2 * i - 1], v[2 * i]
    big = math.max(big, math.sqrt(re[i] ^ 2 + im[i] ^ 2))
  end
  assert.equal(#re, got:size(), what)
  if #re == 0 then return end
  local gr, gi = parts(got)
  local err = math.max((gr - gm.asarray(re)):abs():max(), (gi - gm.asarray(im)):abs():max())
  assert(err <= TOL[dtype] * big, ("%s: off by %.3g (tolerance %.3g)"):format(what, err, TOL[dtype] * big))
end

describe("gm.fft", function()
  if not R.python then
    pending(R.why)
    return
  end

  it("fft, ifft, fftn, ifftn: lengths, axes and norms of complex and real mats as NumPy's", function()
    local a, b, c = R.vals(7, 1), cvals(12, 2), cvals(60, 3)
    local ints = { 3, -1, 4, 1, -5, 9 }
    local res = numpy({
      "a = " .. py_real(a),
      "b = " .. py_complex(b) .. ".reshape(2, 6)",
      "c = " .. py_complex(c) .. ".reshape(3, 5, 4)",
      "i = " .. py_real(ints),
    }, {
      "np.fft.fft(a)", "np.fft.fft(b, n=8)", "np.fft.fft(b, n=4, axis=0)", "np.fft.ifft(b, axis=0, norm='ortho')",
      "np.fft.fft(b, norm='forward')", "np.fft.ifft(b, n=5, norm='forward')", "np.fft.ifft(b)",
      "np.fft.fftn(c)", "np.fft.ifftn(c, s=(4, 3), axes=(0, 2), norm='ortho')", "np.fft.fftn(c, axes=(1,))",
      "np.fft.fftn(c, s=(2, 6))", "np.fft.fft(i)", "np.fft.ifft(np.fft.fft(b))", "np.fft.fft(b.T, axis=0)",
    })
    for _, ct in ipairs { "complex64", "complex128" } do
      local rt = ct == "complex64" and "float32" or "float64"
      local A, B, Cm = rmat(a, { 7 }, rt), cmat(b, { 2, 6 }, ct), cmat(c, { 3, 5, 4 }, ct)
      local got = {
        gm.fft.fft(A), gm.fft.fft(B, { n = 8 }), B:fft({ n = 4, axis = 1 }), gm.fft.ifft(B, { axis = -2, norm = "ortho" }),
        gm.fft.fft(B, { norm = "forward" }), gm.fft.ifft(B, { n = 5, norm = "forward" }), B:ifft(),
        gm.fft.fftn(Cm), gm.fft.ifftn(Cm, { s = { 4, 3 }, axes = { 1, 3 }, norm = "ortho" }),
        Cm:fftn({ axes = { 2 } }), gm.fft.fftn(Cm, { s = { 2, 6 } }),
      }
      for k, g in ipairs(got) do check(g, res[k], ct, ct .. " case " .. k) end
      check(gm.fft.ifft(gm.fft.fft(B)), res[13], ct, ct .. " round trip")
      -- the input is left as it was, and a view's strides are honoured
      check(gm.fft.fft(B:t(), { axis = 1 }), res[14], ct, ct .. " transposed view")
      assert.equal(b[1][1], B[{ 1, 1 }].re)
    end
    check(gm.fft.fft(gm.asarray(ints)), res[12], "complex128", "int64 input")
    check(gm.fft.fft(gm.asarray(ints, { dtype = "int8" })), res[12], "complex128", "int8 input")
  end)

  it("power-of-two lengths, several lines at once (the host's lane transform): rows and columns, whole groups and the rest, as NumPy's", function()
    -- the host transforms power-of-two lines from 8 points on 4 (float) or
    -- 2 (double) at a time: 11 rows of 32, 13 columns of 16, 9 rows of 8,
    -- 5 rows of 256, forward and inverse; other devices run their own
    local a, b, c, d = cvals(11 * 32, 21), cvals(16 * 13, 22), cvals(9 * 8, 23), cvals(5 * 256, 24)
    local res = numpy({
      "a = " .. py_complex(a) .. ".reshape(11, 32)",
      "b = " .. py_complex(b) .. ".reshape(16, 13)",
      "c = " .. py_complex(c) .. ".reshape(9, 8)",
      "d = " .. py_complex(d) .. ".reshape(5, 256)",
    }, {
      "np.fft.fft(a)", "np.fft.ifft(a)", "np.fft.fft(b, axis=0)", "np.fft.ifft(b, axis=0)", "np.fft.fftn(c)",
      "np.fft.fft(d)", "np.fft.ifft(d, norm='ortho')", "np.fft.fft(a.T, axis=0)",
    })
    for _, ct in ipairs { "complex64", "complex128" } do
      local A, B, Cm, D = cmat(a, { 11, 32 }, ct), cmat(b, { 16, 13 }, ct), cmat(c, { 9, 8 }, ct), cmat(d, { 5, 256 }, ct)
      local got = {
        gm.fft.fft(A), gm.fft.ifft(A), gm.fft.fft(B, { axis = 1 }), gm.fft.ifft(B, { axis = 1 }), gm.fft.fftn(Cm),
        gm.fft.fft(D), gm.fft.ifft(D, { norm = "ortho" }), gm.fft.fft(A:t(), { axis = 1 }),
      }
      for k, g in ipairs(got) do check(g, res[k], ct, ct .. " case " .. k) end
    end
  end)

  it("gives the DFT for every length 1..18, then 1..2 again: more shapes than a device's plan cache holds", function()
    -- x[j] = cos(0.37 j) + i sin(1.3 j): made by mat ops (few Lua values)
    local x = gm.arange(18, { dtype = "float64" })
    local z = gm.cos(x * 0.37):as("complex128") + gm.sin(x * 1.3):as("complex128") * C(0, 1)
    for pass, last in ipairs { 18, 2 } do
      for n = 1, last do
        local y = gm.fft.fft(z, { n = n })
        if ON_DEVICE and n == 18 then assert.equal("C", y:facets()) end
        local yr, yi = parts(y)
        yr, yi = yr:to_table(), yi:to_table()
        for k = 0, n - 1 do
          local re, im = 0, 0
          for j = 0, n - 1 do
            local a, xr, xi = -2 * math.pi * ((j * k) % n) / n, math.cos(0.37 * j), math.sin(1.3 * j)
            re, im = re + xr * math.cos(a) - xi * math.sin(a), im + xr * math.sin(a) + xi * math.cos(a)
          end
          assert(math.abs(yr[k + 1] - re) < 1e-12 * n and math.abs(yi[k + 1] - im) < 1e-12 * n,
            ("pass %d, n %d, k %d"):format(pass, n, k))
        end
      end
    end
  end)

  it("long single lines (the host's four-step split) give NumPy's bins, both precisions", function()
    -- x[j] = cos(0.37 j) + i sin(1.3 j), and its real part for rfft
    local cases = { { 49152, false, "fft", { 0, 1, 12345, 49151 } }, { 65536, true, "rfft", { 0, 1, 23456, 32768 } } }
    local res = numpy({ "j = np.arange(65536)" }, {
      "np.fft.fft((np.cos(0.37 * j) + 1j * np.sin(1.3 * j))[:49152])[[0, 1, 12345, 49151]]",
      "np.fft.rfft(np.cos(0.37 * j))[[0, 1, 23456, 32768]]",
    })
    for c, case in ipairs(cases) do
      local n, real, f, ks = table.unpack(case)
      local x = gm.arange(n, { dtype = "float64" })
      local xr, xi = gm.cos(x * 0.37), gm.sin(x * 1.3)
      for _, dt in ipairs { "float32", "float64" } do
        local ct = dt == "float32" and "complex64" or "complex128"
        local y = gm.fft[f](real and xr:as(dt) or xr:as(ct) + xi:as(ct) * C(0, 1))
        -- a transform's rounding: about eps sqrt(n) log2(n) of |x|'s 2-norm
        local tol = (dt == "float32" and 2 ^ -23 or 2 ^ -52) * math.sqrt(n) * 64
        for i, k in ipairs(ks) do
          local g, wr, wi = y[k + 1], res[c][2][2 * i - 1], res[c][2][2 * i]
          assert(math.abs(g.re - wr) <= tol and math.abs(g.im - wi) <= tol,
            ("%s %s n=%d bin %d: %.9g%+.9gi, want %.9g%+.9gi"):format(f, dt, n, k, g.re, g.im, wr, wi))
        end
        if real then -- irfft of the long line (the packed half-length inverse) gives x back
          local err = (gm.fft.irfft(y, { n = n }) - xr:as(dt)):abs():max()
          local eps = dt == "float32" and 2 ^ -23 or 2 ^ -52
          assert(err <= eps * 64 * math.log(n, 2), ("%s irfft(rfft(x)) n=%d off by %.3g"):format(dt, n, err))
        end
      end
    end
  end)

  it("lengths with large prime factors (Bluestein's algorithm on the host) give NumPy's transforms", function()
    -- x[j] = cos(0.37 j) + i sin(1.3 j); its real part for rfft; h (the
    -- first n//2+1 of x) for irfft.  17 runs KISS FFT's generic butterfly,
    -- the others Bluestein's chirp convolution (rfft of the even ones: of
    -- the packed half-length line, 1009 and 99991); 1009 also as the strided
    -- axis of a 1009x3 mat (x's first 3027, row-major: batched, gathered
    -- lines), 2018 as the rows of a 2x2018 mat's rfft.  Bins spread over each result are compared with NumPy, and
    -- ifft(fft(x)) and irfft(rfft(x)) with x over the whole line.
    local lengths = { 17, 1009, 2018, 65537, 2 * 99991 }
    local function bins(n, h)
      local ks, seen = {}, {}
      for i = 0, 40 do
        local k = (i * 7919 * 13) % h
        if i < 3 then k = i elseif i == 3 then k = h - 1 elseif i == 4 then k = n // 2 % h end
        if not seen[k] then seen[k], ks[#ks + 1] = true, k end
      end
      return ks
    end
    local defs, exprs = { "j = np.arange(" .. 2 * 99991 .. ")", "x = np.cos(0.37 * j) + 1j * np.sin(1.3 * j)" }, {}
    for _, n in ipairs(lengths) do
      local kc, kr = bins(n, n), bins(n, n // 2 + 1)
      local lc, lr = table.concat(kc, ","), table.concat(kr, ",")
      local xs, hs = ("x[:%d]"):format(n), ("x[:%d]"):format(n // 2 + 1)
      exprs[#exprs + 1] = ("np.fft.fft(%s)[[%s]]"):format(xs, lc)
      exprs[#exprs + 1] = ("np.fft.ifft(%s, norm='ortho')[[%s]]"):format(xs, lc)
      exprs[#exprs + 1] = ("np.fft.rfft(%s.real)[[%s]]"):format(xs, lr)
      exprs[#exprs + 1] = ("np.fft.irfft(%s, n=%d)[[%s]]"):format(hs, n, lc)
    end
    exprs[#exprs + 1] = "np.fft.rfft(x[:4036].real.reshape(2, 2018))"
    exprs[#exprs + 1] = "np.fft.fft(x[:3027].reshape(1009, 3), axis=0)"
    local res = numpy(defs, exprs)
    local j = gm.arange(2 * 99991, { dtype = "float64" })
    local xr, xi = gm.cos(j * 0.37), gm.sin(j * 1.3)
    for _, dt in ipairs { "float32", "float64" } do
      local ct = dt == "float32" and "complex64" or "complex128"
      local eps = dt == "float32" and 2 ^ -23 or 2 ^ -52
      for c, n in ipairs(lengths) do
        local x = (xr:as(ct) + xi:as(ct) * C(0, 1))[{ { 1, n } }]:copy()
        local re = xr[{ { 1, n } }]:as(dt)
        local h = x[{ { 1, n // 2 + 1 } }]:copy()
        local ks = { bins(n, n), bins(n, n), bins(n, n // 2 + 1), bins(n, n) }
        local got = { gm.fft.fft(x), gm.fft.ifft(x, { norm = "ortho" }), gm.fft.rfft(re), gm.fft.irfft(h, { n = n }) }
        -- rounding: about eps log2(m) times the 2-norm of the input (each
        -- bin; KISS FFT's float twiddles add more in float32), as the long
        -- lines' test: eps sqrt(n) 64 (the input's entries are <= sqrt 2)
        local tol = eps * math.sqrt(n) * 64
        for f = 1, 4 do
          local want, y = res[4 * (c - 1) + f][2], got[f]
          assert.equal(f == 4 and dt or ct, y:dtype())
          assert.same({ f == 3 and n // 2 + 1 or n }, y:dims())
          local scale = (f == 2 or f == 4) and 1 / math.sqrt(n) or 1 -- ortho, irfft's 1/n: |y| smaller
          for i, k in ipairs(ks[f]) do
            local g = y[k + 1]
            local gr, gi = type(g) == "number" and g or g.re, type(g) == "number" and 0 or g.im
            local wr, wi = want[2 * i - 1], want[2 * i]
            assert(math.abs(gr - wr) <= tol * scale and math.abs(gi - wi) <= tol * scale,
              ("%s n=%d transform %d bin %d: %.9g%+.9gi, want %.9g%+.9gi"):format(dt, n, f, k, gr, gi, wr, wi))
          end
        end
        -- round trips over the whole line
        local back = gm.fft.ifft(got[1])
        local err = math.max((back:as("float64") - x:as("float64")):abs():max(),
          ((back - x) * C(0, -1)):as("float64"):abs():max())
        assert(err <= eps * 64 * math.log(n, 2), ("%s n=%d ifft(fft(x)) off by %.3g"):format(dt, n, err))
        err = (gm.fft.irfft(got[3], { n = n }) - re):abs():max()
        assert(err <= eps * 64 * math.log(n, 2), ("%s n=%d irfft(rfft(x)) off by %.3g"):format(dt, n, err))
      end
      -- batched lines: rfft of two rows of 2018 = 2·1009 (the complex
      -- transform: the half length is a Bluestein length too), and a
      -- strided axis, the columns of a 1009x3 mat
      check(gm.fft.rfft(xr[{ { 1, 4036 } }]:as(dt):reshape({ 2, 2018 })), res[#res - 1], ct, ct .. " rfft of 2x2018")
      local m = (xr:as(ct) + xi:as(ct) * C(0, 1))[{ { 1, 3027 } }]:copy():reshape({ 1009, 3 })
      check(gm.fft.fft(m, { axis = 1 }), res[#res], ct, ct .. " 1009x3 along axis 1")
    end
  end)

  it("rfft, irfft, rfftn, irfftn, hfft, ihfft as NumPy's, odd and even lengths", function()
    local a, b2, h, r3 = R.vals(7, 4), R.vals(16, 5), cvals(5, 6), R.vals(72, 7)
    local res = numpy({
      "a = " .. py_real(a), "b = " .. py_real(b2) .. ".reshape(2, 8)", "h = " .. py_complex(h),
      "r = " .. py_real(r3) .. ".reshape(3, 4, 6)",
    }, {
      "np.fft.rfft(a)", "np.fft.rfft(a, n=10, norm='ortho')", "np.fft.rfft(a, n=4)", "np.fft.rfft(b, axis=0)",
      "np.fft.irfft(h)", "np.fft.irfft(h, n=9, norm='forward')", "np.fft.irfft(np.fft.rfft(a), n=7)",
      "np.fft.rfftn(r)", "np.fft.irfftn(np.fft.rfftn(r), s=(3, 4, 6))", "np.fft.rfftn(r, axes=(0, 1), norm='ortho')",
      "np.fft.irfftn(np.fft.rfftn(r, axes=(0, 1)), axes=(0, 1))", "np.fft.hfft(h)", "np.fft.hfft(h, n=7, norm='ortho')",
      "np.fft.ihfft(a)", "np.fft.ihfft(a, norm='forward')", "np.fft.rfft(b)",
    })
    for _, rt in ipairs { "float32", "float64" } do
      local ct = rt == "float32" and "complex64" or "complex128"
      local A, B, H, Rm = rmat(a, { 7 }, rt), rmat(b2, { 2, 8 }, rt), cmat(h, { 5 }, ct), rmat(r3, { 3, 4, 6 }, rt)
      local got = {
        { gm.fft.rfft(A), ct }, { A:rfft({ n = 10, norm = "ortho" }), ct }, { gm.fft.rfft(A, { n = 4 }), ct },
        { gm.fft.rfft(B, { axis = 1 }), ct }, { gm.fft.irfft(H), rt }, { gm.fft.irfft(H, { n = 9, norm = "forward" }), rt },
        { gm.fft.irfft(gm.fft.rfft(A), { n = 7 }), rt }, { gm.fft.rfftn(Rm), ct },
        { gm.fft.irfftn(gm.fft.rfftn(Rm), { s = { 3, 4, 6 } }), rt },
        { gm.fft.rfftn(Rm, { axes = { 1, 2 }, norm = "ortho" }), ct },
        { gm.fft.irfftn(gm.fft.rfftn(Rm, { axes = { 1, 2 } }), { axes = { 1, 2 } }), rt },
        { gm.fft.hfft(H), rt }, { H:hfft({ n = 7, norm = "ortho" }), rt }, { gm.fft.ihfft(A), ct },
        { gm.fft.ihfft(A, { norm = "forward" }), ct }, { B:rfft(), ct },
      }
      for k, g in ipairs(got) do check(g[1], res[k], g[2], rt .. " case " .. k) end
      -- irfft's input is not consumed (cuFFT's C2R overwrites its own)
      local before = H:copy()
      gm.fft.irfft(H)
      assert.is_true(gm.all(H:eq(before)))
    end
  end)

  it("fftfreq, rfftfreq, fftshift and ifftshift as NumPy's", function()
    local x = R.vals(10, 8)
    local res = numpy({ "x = " .. py_real(x) .. ".reshape(2, 5)" }, {
      "np.fft.fftfreq(8, d=0.5)", "np.fft.fftfreq(7)", "np.fft.rfftfreq(8)", "np.fft.rfftfreq(9, d=2.0)",
      "np.fft.fftshift(x)", "np.fft.ifftshift(x)", "np.fft.fftshift(x, axes=(1,))", "np.fft.ifftshift(x, axes=-1)",
      "np.fft.fftshift(np.fft.fftfreq(5))",
    })
    check(gm.fft.fftfreq(8, { d = 0.5 }), res[1], "float64", "fftfreq 8")
    check(gm.fft.fftfreq(7), res[2], "float64", "fftfreq 7")
    check(gm.fft.rfftfreq(8, { dtype = "float32" }), res[3], "float32", "rfftfreq 8")
    check(gm.fft.rfftfreq(9, { d = 2.0 }), res[4], "float64", "rfftfreq 9")
    assert.same({ 0 }, gm.fft.fftfreq(1):to_table())
    assert.same({ 0, -0.25 }, gm.fft.fftfreq(2, { d = 2, dtype = "float32" }):to_table())
    assert.equal("float", gm.fft.fftfreq(2, { dtype = "float32" }):ctype())
    local X = rmat(x, { 2, 5 }, "float64")
    check(gm.fft.fftshift(X), res[5], "float64", "fftshift")
    check(X:ifftshift(), res[6], "float64", "ifftshift")
    check(gm.fft.fftshift(X, { axes = { 2 } }), res[7], "float64", "fftshift axes")
    check(gm.fft.ifftshift(X, { axes = -1 }), res[8], "float64", "ifftshift axis")
    check(gm.fft.fftshift(gm.fft.fftfreq(5)), res[9], "float64", "shifted frequencies")
  end)

  it("refuse bad input naming gm.fft.NAME and the argument", function()
    local z = gm.zeros({ 2, 4 }, { dtype = "complex128" })
    local function fails(pattern, f, ...)
      local ok, err = pcall(f, ...)
      assert.is_false(ok)
      assert.matches(pattern, tostring(err), 1, true)
    end
    fails("bad argument #2 to 'gm.fft.fft' (axis 3 is out of range 1..2", gm.fft.fft, z, { axis = 3 })
    -- the frequencies are a mat from the start: a huge n fails at once
    -- (it grew a Lua table of n numbers until the machine ran out of memory)
    fails("bad argument #1 to 'gm.fft.fftfreq' (cannot make 9223372036854775807 frequencies: too many values",
      gm.fft.fftfreq, math.maxinteger)
    fails("bad argument #1 to 'gm.fft.rfftfreq' (cannot make 4611686018427387904 frequencies: too many values",
      gm.fft.rfftfreq, math.maxinteger)
    fails("bad argument #1 to 'gm.fft.fftfreq' (n must be an integer of at least 1, got 0)", gm.fft.fftfreq, 0)
    fails("bad argument #2 to 'gm.fft.ifft' (n must be an integer of at least 1, got 0)", gm.fft.ifft, z, { n = 0 })
    fails("bad argument #1 to 'gm.fft.fftn' (gpumat.mat expected, got string)", gm.fft.fftn, "x")
    fails("bad argument #1 to 'gm.fft.rfft' (a complex128 mat; this transform takes real input)", gm.fft.rfft, z)
    fails("bad argument #2 to 'gm.fft.fft' (norm must be", gm.fft.fft, z, { norm = "none" })
    fails("bad argument #2 to 'gm.fft.irfft' (unknown option 'axes')", gm.fft.irfft, z, { axes = 1 })
    fails("bad argument #2 to 'gm.fft.irfft' (invalid number of data points (0)", gm.fft.irfft,
      gm.zeros({ 1 }, { dtype = "complex64" }))
    fails("bad argument #2 to 'gm.fft.rfftn' (s has 3 lengths for 2 axes)", gm.fft.rfftn, gm.zeros({ 2, 4 }),
      { s = { 2, 2, 2 }, axes = { 1, 2 } })
    fails("bad argument #1 to 'gm.fft.fftfreq' (n must be an integer of at least 1, got 0)", gm.fft.fftfreq, 0)
    fails("bad argument #2 to 'gm.fft.fftshift' (axis 0 is out of range", gm.fft.fftshift, z, { axes = { 0 } })
    fails("bad argument #3 to 'gm.fft.fft' (no value expected)", gm.fft.fft, z, {}, 1)
    fails("bad argument #1 to 'gm.fft.fft' (a 0-d mat has no axis to transform)", gm.fft.fft, gm.asarray(1.5))
  end)
end)
