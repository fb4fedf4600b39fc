local gm = require "gpumat"

-- Plain-Lua reference of the generator (kernels/random.h): Philox4x32-10
-- on 64-bit Lua integers (multiplication wraps, >> is logical).
local M32 = 0xffffffff

local function philox(c, k)
  local c0, c1, c2, c3 = c[1], c[2], c[3], c[4]
  local k0, k1 = k[1], k[2]
  for r = 1, 10 do
    if r > 1 then
      k0 = (k0 + 0x9E3779B9) & M32
      k1 = (k1 + 0xBB67AE85) & M32
    end
    local p0, p1 = 0xD2511F53 * c0, 0xCD9E8D57 * c2
    local hi0, lo0 = (p0 >> 32) & M32, p0 & M32
    local hi1, lo1 = (p1 >> 32) & M32, p1 & M32
    c0, c1, c2, c3 = hi1 ~ c1 ~ k0, lo1, hi0 ~ c3 ~ k1, lo0
  end
  return { c0, c1, c2, c3 }
end

local function block(key, b)
  return philox({ b & M32, (b >> 32) & M32, 0, 0 }, { key & M32, (key >> 32) & M32 })
end

local function to_float(x) return (string.unpack("<f", string.pack("<f", x))) end

-- The largest value of the ctype below a positive x (C's nextafter(x, 0)).
local function below(ctype, x)
  if ctype == "float" then
    return (string.unpack("<f", string.pack("<I4", string.unpack("<I4", string.pack("<f", x)) - 1)))
  end
  return (string.unpack("<d", string.pack("<i8", string.unpack("<i8", string.pack("<d", x)) - 1)))
end

-- Element i (0-based) of a fill from block `counter` of stream `key`.
local ref = {}
function ref.uniform(ctype, key, counter, i, limit)
  if ctype == "float" then
    local w = block(key, counter + i // 4)[i % 4 + 1]
    local lim = to_float(limit)
    local x = to_float((w >> 8) * 2.0 ^ -24 * lim)
    return x < lim and x or below("float", lim)
  end
  local w = block(key, counter + i // 2)
  local j = (i % 2) * 2
  local bits = ((w[j + 2] << 32) | w[j + 1]) >> 11
  local x = bits * 2.0 ^ -53 * limit
  return x < limit and x or below("double", limit)
end

local function box_muller(u1, u2)
  local r = math.sqrt(-2.0 * math.log(u1))
  local a = 6.283185307179586 * u2
  return r * math.cos(a), r * math.sin(a)
end

function ref.gaussian(ctype, key, counter, i, mean, stddev)
  if ctype == "float" then
    local w = block(key, counter + i // 4)
    local lane = i % 4
    local p = lane < 2 and 1 or 3
    local z0, z1 = box_muller((w[p] + 1.0) * 2.0 ^ -32, w[p + 1] * 2.0 ^ -32)
    local z = lane % 2 == 0 and z0 or z1
    return to_float(to_float(mean) + to_float(stddev) * z)
  end
  local w = block(key, counter + i // 2)
  local a = ((w[2] << 32) | w[1]) >> 11
  local b = ((w[4] << 32) | w[3]) >> 11
  local z0, z1 = box_muller((a + 1.0) * 2.0 ^ -53, b * 2.0 ^ -53)
  return mean + stddev * (i % 2 == 0 and z0 or z1)
end

local tol = { float = 1e-6, double = 1e-12 }

local function values(m)
  if m:size() > 100 then return m:reshape(m:size()):to_table() end
  local t = {}
  for k = 1, m:size() do t[k] = m:row_major_mref(k) end
  return t
end

-- Number of elements outside [lo, hi) (one assertion per check keeps the
-- specs fast under the aggressive-GC run).
local function n_outside(t, lo, hi)
  local bad = 0
  for _, x in ipairs(t) do if not (x >= lo and x < hi) then bad = bad + 1 end end
  return bad
end

local function mean_var(t)
  local s, s2 = 0, 0
  for _, x in ipairs(t) do s = s + x end
  local mu = s / #t
  for _, x in ipairs(t) do s2 = s2 + (x - mu) ^ 2 end
  return mu, s2 / (#t - 1)
end

describe("random", function()
  describe("Philox reference", function()
    it("matches Random123's known-answer vectors", function()
      assert.same({ 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 }, philox({ 0, 0, 0, 0 }, { 0, 0 }))
      assert.same({ 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd },
        philox({ M32, M32, M32, M32 }, { M32, M32 }))
      assert.same({ 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 },
        philox({ 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344 }, { 0xa4093822, 0x299f31d0 }))
    end)
  end)

  for _, ctype in ipairs { "float", "double" } do
    describe(ctype, function()
      it("uniform_random_ gives the reference values for a seed", function()
        gm.seed(42)
        local m = gm.mat({ 3, 5 }, { ctype = ctype })
        assert.equal(m, gm.uniform_random_(m, { limit = 3 }))
        for i = 0, 14 do
          local want = ref.uniform(ctype, 42, 0, i, 3)
          assert.near(want, m:row_major_mref(i + 1), tol[ctype] * 3)
          if ctype == "double" then assert.equal(want, m:row_major_mref(i + 1)) end
        end
      end)

      it("gaussian_random_ gives the reference values for a seed", function()
        gm.seed(7)
        local m = gm.mat(11, { ctype = ctype })
        m:gaussian_random_({ mean = 2, stddev = 0.5 })
        for i = 0, 10 do
          local want = ref.gaussian(ctype, 7, 0, i, 2, 0.5)
          assert.near(want, m:row_major_mref(i + 1), tol[ctype] * 4)
        end
      end)

      it("advances the global stream by whole blocks per fill", function()
        local per = ctype == "float" and 4 or 2
        gm.seed(99)
        gm.uniform_random_(gm.mat(5, { ctype = ctype }))
        assert.equal(string.format("#<random_state philox key=99 counter=%d>", (5 + per - 1) // per),
          tostring(gm.random_state()))
        local m = gm.mat(3, { ctype = ctype })
        m:uniform_random_()
        local start = (5 + per - 1) // per
        for i = 0, 2 do
          assert.near(ref.uniform(ctype, 99, start, i, 1), m:row_major_mref(i + 1), tol[ctype])
        end
      end)

      it("gives the host's values on the emulated device", function()
        if not gm.with_cuda then return pending("with_cuda is not available") end
        local host, dev = gm.mat(7, { ctype = ctype }), nil
        gm.seed(21); host:gaussian_random_({ mean = 1 })
        gm.seed(21)
        gm.with_cuda({ backend = "emulated" }, function()
          dev = gm.mat(7, { ctype = ctype }):gaussian_random_({ mean = 1 })
          assert.is_true(dev:find_facet("cuda").up_to_date)
        end)
        assert.same(values(host), values(dev))
      end)

      it("is reproducible for a seed and differs between seeds", function()
        local a, b, c = gm.mat(50, { ctype = ctype }), gm.mat(50, { ctype = ctype }), gm.mat(50, { ctype = ctype })
        gm.seed(123); a:gaussian_random_()
        gm.seed(123); b:gaussian_random_()
        gm.seed(124); c:gaussian_random_()
        assert.same(values(a), values(b))
        assert.are_not.same(values(a), values(c))
      end)

      it("keeps uniform samples in [0, limit) with the right moments", function()
        -- n = 40000 U(0, 2): the mean has sd 2/sqrt(12 n) = 0.0029 and the
        -- variance (1/3) has sd sqrt((mu4 - s^4)/n) = sqrt((1/5 - 1/9)/n)
        -- = 0.0015; 5 sd bounds.
        gm.seed(2024)
        local n = 40000
        local m = gm.mat(n, { ctype = ctype })
        m:uniform_random_({ limit = 2 })
        local t = values(m)
        assert.equal(0, n_outside(t, 0, 2))
        local mu, var = mean_var(t)
        assert.near(1, mu, 5 * 0.0029)
        assert.near(1 / 3, var, 5 * 0.0015)
      end)

      it("keeps samples strictly below a limit that products round up to", function()
        -- With a subnormal limit of 3 ulps, u * limit rounds to the limit
        -- itself whenever u > 5/6: about a sixth of the raw products hit it,
        -- and the guard must move each of them to the value just below.
        gm.seed(5)
        local tiny = 3 * (ctype == "float" and 2.0 ^ -149 or 2.0 ^ -1074)
        local n = 600
        local m = gm.mat(n, { ctype = ctype })
        m:uniform_random_({ limit = tiny })
        local n_top, n_diff = 0, 0
        local t = values(m)
        for i, x in ipairs(t) do
          if ref.uniform(ctype, 5, 0, i - 1, tiny) ~= x then n_diff = n_diff + 1 end
          if x == below(ctype, tiny) then n_top = n_top + 1 end
        end
        assert.equal(0, n_outside(t, 0, tiny))
        assert.equal(0, n_diff)
        -- samples at 2 ulps: u in [0.5, 1) -> about n / 2 (guarded ones included)
        assert.is_true(n_top > n / 3 and n_top < 2 * n / 3)
      end)

      it("keeps samples below a non-representable limit", function()
        gm.seed(5)
        local m = gm.mat(10000, { ctype = ctype })
        m:uniform_random_({ limit = 0.1 })
        local lim = ctype == "float" and to_float(0.1) or 0.1
        assert.equal(0, n_outside(values(m), 0, lim))
      end)

      it("gaussian samples have the requested mean and stddev", function()
        -- n = 40000 N(2, 3^2): the mean has sd 3/sqrt(n) = 0.015, the
        -- variance 9 has sd sqrt(2 * 81 / n) = 0.064; 5 sd bounds.
        gm.seed(77)
        local n = 40000
        local m = gm.mat(n, { ctype = ctype })
        m:gaussian_random_({ mean = 2, stddev = 3 })
        local mu, var = mean_var(values(m))
        assert.near(2, mu, 5 * 0.015)
        assert.near(9, var, 5 * 0.064)
      end)

      it("fills only the visible part of a displaced view", function()
        gm.seed(11)
        local base = gm.mat(10, { ctype = ctype, initial_element = 7 })
        local v = gm.mat({ 2, 2 }, { displaced_to = base, displacement = 3 })
        v:uniform_random_({ limit = 5 })
        local t = values(base)
        for _, k in ipairs { 1, 2, 3, 8, 9, 10 } do assert.equal(7, t[k]) end
        for i = 0, 3 do assert.near(ref.uniform(ctype, 11, 0, i, 5), t[4 + i], tol[ctype] * 5) end
        v:gaussian_random_()
        t = values(base)
        for _, k in ipairs { 1, 2, 3, 8, 9, 10 } do assert.equal(7, t[k]) end
      end)

      it("a saved state replays the same stream", function()
        gm.seed(3)
        gm.uniform_random_(gm.mat(3, { ctype = ctype }))
        local s = gm.random_state()
        local a, b = gm.mat(9, { ctype = ctype }), gm.mat(9, { ctype = ctype })
        a:gaussian_random_()
        gm.set_random_state(s)
        b:gaussian_random_()
        assert.same(values(a), values(b))
        assert.are_not.equal(s, gm.random_state())
      end)

      it("the state option draws from (and advances) that state only", function()
        gm.seed(8)
        local s = gm.random_state()
        local s2 = gm.copy_random_state(s)
        assert.equal(s, s2)
        local global_before = gm.random_state()
        local a, b, c = gm.mat(6, { ctype = ctype }), gm.mat(6, { ctype = ctype }), gm.mat(6, { ctype = ctype })
        a:uniform_random_({ state = s })
        b:uniform_random_({ state = s })
        c:uniform_random_({ state = s2 })
        assert.equal(global_before, gm.random_state())
        assert.are_not.same(values(a), values(b))
        assert.same(values(a), values(c))
        assert.are_not.equal(s, s2)
        c:uniform_random_({ state = s2 })
        assert.same(values(b), values(c))
        assert.equal(s, s2)
      end)
    end)
  end

  describe("mv_gaussian_random", function()
    local cov_t = { { 4, 1, 0.5 }, { 1, 2, 0.3 }, { 0.5, 0.3, 1 } }

    local function cholesky(a)
      local n, l = #a, {}
      for i = 1, n do
        l[i] = {}
        for j = 1, n do l[i][j] = 0 end
      end
      for i = 1, n do
        for j = 1, i do
          local s = a[i][j]
          for k = 1, j - 1 do s = s - l[i][k] * l[j][k] end
          l[i][j] = i == j and math.sqrt(s) or s / l[j][j]
        end
      end
      return l
    end

    for _, ctype in ipairs { "float", "double" } do
      it("returns means + chol(C) z for the stream's z (" .. ctype .. ")", function()
        local means = gm.mat({ 3, 1 }, { ctype = ctype, initial_contents = { { 1 }, { -2 }, { 3 } } })
        local cov = gm.mat({ 3, 3 }, { ctype = ctype, initial_contents = cov_t })
        gm.seed(17)
        local s1, s2 = gm.random_state(), gm.random_state()
        local x = gm.mv_gaussian_random({ means = means, covariances = cov, state = s1 })
        assert.same({ 3, 1 }, x:dims())
        assert.equal(ctype, x:ctype())
        local z = gm.mat({ 3, 1 }, { ctype = ctype }):gaussian_random_({ state = s2 })
        assert.equal(s1, s2)
        local l = cholesky(cov_t)
        local mu = { 1, -2, 3 }
        for i = 1, 3 do
          local want = mu[i]
          for j = 1, i do want = want + l[i][j] * z:row_major_mref(j) end
          assert.near(want, x:row_major_mref(i), (ctype == "float" and 1e-5 or 1e-12) * 10)
        end
      end)
    end

    it("sample covariance matches the given covariance", function()
      -- n = 4000 draws: the sample covariance entry (i, j) has sd
      -- sqrt((c_ii c_jj + c_ij^2) / n) (0.09 for c_11 = 4); 5 sd bounds.
      local means = gm.mat({ 3, 1 }, { initial_contents = { { 1 }, { -2 }, { 3 } } })
      local cov = gm.mat({ 3, 3 }, { initial_contents = cov_t })
      gm.seed(31)
      local n, xs = 4000, {}
      for k = 1, n do
        local x = gm.mv_gaussian_random({ means = means, covariances = cov })
        xs[k] = { x:row_major_mref(1), x:row_major_mref(2), x:row_major_mref(3) }
      end
      local mu = { 0, 0, 0 }
      for _, x in ipairs(xs) do for i = 1, 3 do mu[i] = mu[i] + x[i] / n end end
      for i = 1, 3 do assert.near(({ 1, -2, 3 })[i], mu[i], 5 * math.sqrt(cov_t[i][i] / n)) end
      for i = 1, 3 do
        for j = 1, 3 do
          local s = 0
          for _, x in ipairs(xs) do s = s + (x[i] - mu[i]) * (x[j] - mu[j]) end
          s = s / (n - 1)
          local sd = math.sqrt((cov_t[i][i] * cov_t[j][j] + cov_t[i][j] ^ 2) / n)
          assert.near(cov_t[i][j], s, 5 * sd)
        end
      end
    end)

    it("accepts a vector of means", function()
      local x = gm.mv_gaussian_random({ means = gm.mat(2, { initial_contents = { 1, 2 } }),
        covariances = gm.mat({ 2, 2 }, { initial_contents = { { 1, 0 }, { 0, 1 } } }) })
      assert.same({ 2, 1 }, x:dims())
    end)

    it("rejects bad arguments", function()
      local means = gm.mat({ 3, 1 })
      local cov = gm.mat({ 3, 3 }, { initial_contents = cov_t })
      assert.has_error(function() gm.mv_gaussian_random() end,
        "bad argument #1 to 'mv_gaussian_random' (options table expected, got no value)")
      assert.has_error(function() gm.mv_gaussian_random({ covariances = cov }) end,
        "bad argument #1 to 'mv_gaussian_random' (option 'means' is required)")
      assert.has_error(function() gm.mv_gaussian_random({ means = means, covariances = 3 }) end,
        "bad argument #1 to 'mv_gaussian_random' (option 'covariances' must be a gpumat.mat, got number)")
      assert.has_error(function() gm.mv_gaussian_random({ means = means, covariances = cov, foo = 1 }) end,
        "bad argument #1 to 'mv_gaussian_random' (unknown option 'foo')")
      assert.has_error(function()
        gm.mv_gaussian_random({ means = means, covariances = gm.mat({ 3, 3 }, { ctype = "float" }) })
      end, "bad argument #1 to 'mv_gaussian_random' (means and covariances have different ctypes: double and float)")
      assert.has_error(function() gm.mv_gaussian_random({ means = means, covariances = gm.mat({ 2, 2 }) }) end,
        "mv_gaussian_random: covariances must be 3 x 3 to match means")
      assert.has_error(function() gm.mv_gaussian_random({ means = gm.mat({ 3, 2 }), covariances = cov }) end,
        "mv_gaussian_random: means must be an N x 1 column (or a vector)")
      local not_pd = gm.mat({ 2, 2 }, { initial_contents = { { 1, 2 }, { 2, 1 } } })
      assert.has_error(function() gm.mv_gaussian_random({ means = gm.mat({ 2, 1 }), covariances = not_pd }) end,
        "mv_gaussian_random: covariances are not positive definite (leading minor 2)")
      local asym = gm.mat({ 2, 2 }, { initial_contents = { { 1, 0.5 }, { 0, 1 } } })
      assert.has_error(function() gm.mv_gaussian_random({ means = gm.mat({ 2, 1 }), covariances = asym }) end,
        "mv_gaussian_random: covariances are not symmetric (elements 2,1 and 1,2)")
    end)
  end)

  describe("orthogonal_random_", function()
    for _, ctype in ipairs { "float", "double" } do
      for _, shape in ipairs { { 6, 3 }, { 4, 4 }, { 3, 7 } } do
        it(string.format("%s %dx%d is orthogonal with scale", ctype, shape[1], shape[2]), function()
          gm.seed(shape[1] * 10 + shape[2])
          local r, c = shape[1], shape[2]
          local m = gm.mat(shape, { ctype = ctype })
          assert.equal(m, gm.orthogonal_random_(m, { scale = 2.5 }))
          local eps = ctype == "float" and 1e-5 or 1e-12
          -- tall/square: columns orthonormal (M^T M); wide: rows (M M^T)
          local n = math.min(r, c)
          for i = 1, n do
            for j = 1, n do
              local s = 0
              for k = 1, math.max(r, c) do
                if r >= c then s = s + m:mref(k, i) * m:mref(k, j)
                else s = s + m:mref(i, k) * m:mref(j, k) end
              end
              assert.near(i == j and 6.25 or 0, s, 6.25 * eps * 10)
            end
          end
        end)
      end
    end

    it("draws from the state option and is reproducible", function()
      gm.seed(1)
      local s = gm.random_state()
      local a = gm.orthogonal_random_(gm.mat({ 3, 3 }), { state = gm.copy_random_state(s) })
      local b = gm.orthogonal_random_(gm.mat({ 3, 3 }), { state = s })
      assert.same(values(a), values(b))
      assert.equal("#<random_state philox key=1 counter=5>", tostring(s))
    end)

    it("leaves invisible elements of a displaced matrix alone", function()
      local base = gm.mat(12, { initial_element = 9 })
      local v = gm.mat({ 2, 2 }, { displaced_to = base, displacement = 4 })
      v:orthogonal_random_()
      local t = values(base)
      for _, k in ipairs { 1, 2, 3, 4, 9, 10, 11, 12 } do assert.equal(9, t[k]) end
      assert.near(1, t[5] ^ 2 + t[7] ^ 2, 1e-12)
    end)

    it("rejects non-matrices and bad scales", function()
      assert.has_error(function() gm.orthogonal_random_(gm.mat(3)) end,
        "bad argument #1 to 'orthogonal_random_' (matrix (rank 2) expected, got rank 1)")
      assert.has_error(function() gm.orthogonal_random_(gm.mat({ 2, 2 }), { scale = "x" }) end,
        "bad argument #2 to 'orthogonal_random_' (option 'scale' must be a number, got string)")
      assert.has_error(function() gm.orthogonal_random_(gm.mat({ 2, 2 }), { scale = 1 / 0 }) end,
        "orthogonal_random_: scale must be finite as double, got inf")
    end)
  end)

  describe("argument checks", function()
    it("rejects bad limits, moments, options and states", function()
      local m = gm.mat(3)
      local f = gm.mat(3, { ctype = "float" })
      local before = values(m)
      assert.has_error(function() gm.uniform_random_(m, { limit = 0 }) end,
        "bad argument #2 to 'uniform_random_' (limit must be positive and finite as double, got 0)")
      assert.has_error(function() gm.uniform_random_(f, { limit = 1e300 }) end,
        "bad argument #2 to 'uniform_random_' (limit must be positive and finite as float, got 1e+300)")
      assert.has_error(function() gm.uniform_random_(m, { limit = "2" }) end,
        "bad argument #2 to 'uniform_random_' (option 'limit' must be a number, got string)")
      assert.has_error(function() gm.uniform_random_(m, { lim = 2 }) end,
        "bad argument #2 to 'uniform_random_' (unknown option 'lim')")
      assert.has_error(function() gm.uniform_random_(m, { state = {} }) end,
        "bad argument #2 to 'uniform_random_' (option 'state' must be a gpumat.random_state, got table)")
      assert.has_error(function() gm.uniform_random_(nil) end,
        "bad argument #1 to 'uniform_random_' (gpumat.mat expected, got nil)")
      assert.has_error(function() gm.gaussian_random_(m, { stddev = -1 }) end,
        "bad argument #2 to 'gaussian_random_' (stddev must be non-negative and finite as double, got -1)")
      assert.has_error(function() gm.gaussian_random_(m, { mean = 0 / 0 }) end)
      assert.same(before, values(m))
      assert.has_error(function() gm.seed("x") end, "bad argument #1 to 'seed' (integer expected, got string)")
      assert.has_error(function() gm.seed(1.5) end, "bad argument #1 to 'seed' (integer expected, got 1.5)")
      assert.has_error(function() gm.set_random_state(5) end,
        "bad argument #1 to 'set_random_state' (gpumat.random_state expected, got number)")
      assert.has_error(function() gm.copy_random_state() end,
        "bad argument #1 to 'copy_random_state' (gpumat.random_state expected, got no value)")
    end)

    it("a freed mat is rejected", function()
      local m = gm.mat(2)
      m:free()
      assert.has_error(function() gm.uniform_random_(m) end,
        "bad argument #1 to 'uniform_random_' (attempt to use a freed mat)")
    end)

    it("empty mats are fine and consume nothing", function()
      gm.seed(4)
      local before = gm.random_state()
      gm.uniform_random_(gm.mat(0))
      gm.gaussian_random_(gm.mat({ 0, 3 }))
      assert.equal(before, gm.random_state())
    end)
  end)
end)
