-- gm.linalg (the array standard's linear algebra extension) against NumPy
-- (python3 with numpy, run once per test; pending without it) and against
-- invariants where the results are not unique (QR, eigenvectors, SVD).
-- Under GPUMAT_DEVICE=emulated every test runs on the emulated device
-- (spec/helper.lua), so the cuSOLVER-shaped path is checked too.
local gm = require "gpumat"

local TOL = { float = 1e-4, double = 1e-10, complex64 = 1e-4, complex128 = 1e-10 }

-- NumPy, values and mats: spec/numpy_ref.lua
local R = require "numpy_ref"
local NUMPY, vals, count, flat, mk = R.python ~= nil, R.vals, R.count, R.flat, R.mk

-- a stack of well-conditioned matrices (n I added), and of SPD ones
local function wellcond(dims, seed)
  local v, n = vals(count(dims), seed), dims[#dims]
  for i = 1, #v do
    local k = (i - 1) % (n * n)
    if k // n == k % n then v[i] = v[i] + n end
  end
  return v
end

-- NumPy's results of exprs over vars = {name = {dims, values}}: one flat
-- list per expr
local function numpy(vars, exprs)
  local out = R.numpy(vars, exprs)
  for i, r in ipairs(out) do out[i] = r[2] end
  return out
end

-- |actual - expected| <= tol * max(1, max |expected|), elementwise
local function close(actual, expected, ct, what)
  actual = type(actual) == "table" and actual or flat(actual)
  assert(#actual == #expected, string.format("%s: %d values, expected %d", what, #actual, #expected))
  local scale = 1
  for _, e in ipairs(expected) do
    if e == e and math.abs(e) ~= math.huge then scale = math.max(scale, math.abs(e)) end
  end
  for i, e in ipairs(expected) do
    local a = actual[i]
    local ok = (a == e) or math.abs(a - e) <= TOL[ct] * scale
    if not ok then
      error(string.format("%s[%d]: expected %.17g, got %.17g (%s)", what, i, e, a, ct), 2)
    end
  end
end

local function dims_of(m) return m:dims() end

-- the batched product and transpose through gm.linalg.matmul
local mm, mT = gm.linalg.matmul, gm.linalg.matrix_transpose

local function eye_like(ct, s, n)
  return gm.eye(n, { ctype = ct }):expand(s and { s, n, n } or { n, n }):contiguous()
end

describe("gm.linalg", function()
  for _, ct in ipairs { "float", "double" } do
    describe(ct, function()
      local function pend() if not NUMPY then pending("python3 with numpy is not installed") end return NUMPY end

      it("solve: stacks, broadcasting and vectors as NumPy", function()
        if not pend() then return end
        local av, bv, cv, vv = wellcond({ 3, 2, 4, 4 }, 1), vals(8, 2), wellcond({ 2, 1, 4, 4 }, 3), vals(4, 4)
        local B3 = vals(3 * 4 * 2, 5)
        local a, b, c, v = mk(ct, { 3, 2, 4, 4 }, av), mk(ct, { 4, 2 }, bv), mk(ct, { 2, 1, 4, 4 }, cv),
          mk(ct, { 4 }, vv)
        local b3 = mk(ct, { 3, 4, 2 }, B3)
        -- (a stack of vectors is written as one-column matrices: NumPy 1
        -- and 2 read a b of rank > 1 differently, and the GPU machine has 2)
        local ref = numpy({ A = { { 3, 2, 4, 4 }, av }, B = { { 4, 2 }, bv }, C = { { 2, 1, 4, 4 }, cv },
          V = { { 4 }, vv }, B3 = { { 3, 4, 2 }, B3 } },
          { "np.linalg.solve(A, B)", "np.linalg.solve(A, V[:, None])[..., 0]", "np.linalg.solve(C, B3[None])", "np.linalg.solve(A[0,0], V)",
            "np.linalg.solve(A, B3[:2, :, :1].reshape(1, 2, 4, 1))" })
        local x = gm.linalg.solve(a, b)
        assert.same({ 3, 2, 4, 2 }, dims_of(x))
        close(x, ref[1], ct, "solve stack")
        local xv = gm.linalg.solve(a, v)
        assert.same({ 3, 2, 4 }, dims_of(xv))
        close(xv, ref[2], ct, "solve vector")
        local xb = gm.linalg.solve(c, b3)
        assert.same({ 2, 3, 4, 2 }, dims_of(xb))
        close(xb, ref[3], ct, "solve broadcast")
        -- one matrix given as a transposed view (strided input)
        local a1 = mk(ct, { 4, 4 }, { table.unpack(av, 1, 16) })
        local x1 = gm.linalg.solve(a1:t():t(), v)
        close(x1, ref[4], ct, "solve view")
        assert.same(av[1], a1[1]) -- input untouched
        -- one column per system: (2, 4, 1) broadcast against the 3x2 stack
        local b1 = b3:narrow(1, 1, 2):narrow(3, 1, 1)
        local x1c = gm.linalg.solve(a, b1)
        assert.same({ 3, 2, 4, 1 }, dims_of(x1c))
        close(x1c, ref[5], ct, "solve one column")
      end)

      it("inv, det and slogdet of a stack and of one matrix", function()
        if not pend() then return end
        local av = wellcond({ 3, 2, 3, 3 }, 6)
        av[1] = -av[1] * 3 -- some negative determinants
        local a = mk(ct, { 3, 2, 3, 3 }, av)
        local ref = numpy({ A = { { 3, 2, 3, 3 }, av } },
          { "np.linalg.inv(A)", "np.linalg.det(A)", "np.linalg.slogdet(A)[0]", "np.linalg.slogdet(A)[1]",
            "np.linalg.det(A[0,0])" })
        local inv = gm.linalg.inv(a)
        assert.same({ 3, 2, 3, 3 }, dims_of(inv))
        close(inv, ref[1], ct, "inv")
        local d = gm.linalg.det(a)
        assert.same({ 3, 2 }, dims_of(d))
        close(d, ref[2], ct, "det")
        local sign, logabs = gm.linalg.slogdet(a)
        close(sign, ref[3], ct, "slogdet sign")
        close(logabs, ref[4], ct, "slogdet logabs")
        local a1 = mk(ct, { 3, 3 }, { table.unpack(av, 1, 9) })
        local d1 = gm.linalg.det(a1)
        assert.is_number(d1)
        close({ d1 }, ref[5], ct, "det one")
        local s1, l1 = gm.linalg.slogdet(a1)
        assert.same(ref[3][1], s1)
        close({ l1 }, { ref[4][1] }, ct, "slogdet one")
      end)

      it("singular: det 0, slogdet (0, -inf); solve and inv name the stack index", function()
        local sv = { 1, 2, 2, 4 }
        local s = mk(ct, { 2, 2 }, sv)
        assert.equal(0, gm.linalg.det(s))
        local sign, la = gm.linalg.slogdet(s)
        assert.same({ 0, -math.huge }, { sign, la })
        local st = mk(ct, { 3, 2, 2 }, { 2, 0, 0, 2, 1, 2, 2, 4, 1, 0, 0, 1 })
        assert.has_error(function() gm.linalg.solve(st, mk(ct, { 2 }, { 1, 1 })) end,
          "solve: matrix 2 of the stack is singular (U(2,2) is zero)")
        assert.has_error(function() gm.linalg.inv(st) end, "inv: matrix 2 of the stack is singular (U(2,2) is zero)")
        assert.same({ 2, 0, 0, 2, 1, 2, 2, 4, 1, 0, 0, 1 }, flat(st))
        local d = gm.linalg.det(st)
        close(d, { 4, 0, 1 }, ct, "det with a singular one")
        -- a NaN gives a NaN determinant (NumPy's), not an error; others unaffected
        local nanst = mk(ct, { 2, 2, 2 }, { 1, 0 / 0, 3, 4, 2, 0, 0, 2 })
        local dn = flat(gm.linalg.det(nanst))
        assert.is_true(dn[1] ~= dn[1])
        assert.equal(4, dn[2])
        local ns, nl = gm.linalg.slogdet(mk(ct, { 2, 2 }, { 0 / 0, 1, 1, 1 }))
        assert.is_true(nl ~= nl)
        -- qr of a NaN column: NaN in R's last column, Q from the finite one (NumPy's)
        local q, r = gm.linalg.qr(mk(ct, { 2, 2 }, { 1, 0 / 0, 3, 4 }))
        local rv = flat(r)
        assert.is_true(rv[2] ~= rv[2] and rv[4] ~= rv[4])
        close(flat(q), { -1 / math.sqrt(10), -3 / math.sqrt(10), -3 / math.sqrt(10), 1 / math.sqrt(10) }, ct, "qr q")
        -- a long stack: the first singular one in stack order is named
        local big = gm.eye(3, { ctype = ct }):expand(5, 8, 3, 3):contiguous()
        big[{ 3, 2 }] = 0 -- matrix (3-1)*8+2 = 18
        big[{ 5, 1 }] = 0 -- matrix 33
        assert.has_error(function() gm.linalg.inv(big) end, "inv: matrix 18 of the stack is singular (U(1,1) is zero)")
        assert.has_error(function() gm.linalg.cholesky(big) end,
          "cholesky: matrix 18 of the stack is not positive definite (leading minor 1)")
      end)

      it("cholesky lower and upper; not positive definite names the index", function()
        if not pend() then return end
        local gv = vals(2 * 4 * 4, 7)
        local g = mk(ct, { 2, 4, 4 }, gv)
        local spd = mm(g, mT(g)) + eye_like(ct, 2, 4)
        -- junk in the upper triangle is ignored (NumPy reads the lower one)
        local junk = spd:copy()
        junk[{ 1, 1, 4 }] = 100
        local sv = flat(spd)
        local ref = numpy({ S = { { 2, 4, 4 }, sv } }, { "np.linalg.cholesky(S)", "np.swapaxes(np.linalg.cholesky(S), -1, -2)" })
        close(gm.linalg.cholesky(spd), ref[1], ct, "cholesky")
        close(gm.linalg.cholesky(junk), ref[1], ct, "cholesky reads the lower triangle")
        close(gm.linalg.cholesky(spd, { upper = true }), ref[2], ct, "cholesky upper")
        local bad = mk(ct, { 3, 2, 2 }, { 2, 0, 0, 2, 4, 1, 1, 3, 1, 2, 2, 1 })
        assert.has_error(function() gm.linalg.cholesky(bad) end,
          "cholesky: matrix 3 of the stack is not positive definite (leading minor 2)")
      end)

      for _, shape in ipairs { { 2, 5, 3 }, { 2, 3, 5 }, { 4, 4 } } do
        it("qr of " .. table.concat(shape, "x") .. ": q r = a, q orthonormal, r upper", function()
          local a = mk(ct, shape, vals(count(shape), 8))
          local m, n = shape[#shape - 1], shape[#shape]
          local k = math.min(m, n)
          for _, mode in ipairs { "reduced", "complete" } do
            local q, r = gm.linalg.qr(a, { mode = mode })
            local qc = mode == "reduced" and k or m
            local s = #shape == 3 and shape[1] or nil
            assert.same(s and { s, m, qc } or { m, qc }, dims_of(q))
            assert.same(s and { s, qc, n } or { qc, n }, dims_of(r))
            close(mm(q, r), flat(a), ct, mode .. " q r")
            close(mm(mT(q), q), flat(eye_like(ct, s, qc)), ct, mode .. " q^T q")
            local rv, rc = flat(r), n
            for i, x in ipairs(rv) do
              local row, col = ((i - 1) // rc) % qc, (i - 1) % rc
              if row > col then assert.equal(0, x) end
            end
          end
        end)
      end

      it("eigh and eigvalsh: NumPy's eigenvalues, V diag(w) V^T = a, V orthogonal", function()
        if not pend() then return end
        local gv = vals(2 * 3 * 5 * 5, 9)
        local g = mk(ct, { 2, 3, 5, 5 }, gv)
        local a = g + mT(g)
        local ref = numpy({ A = { { 2, 3, 5, 5 }, flat(a) } }, { "np.linalg.eigvalsh(A)" })
        local w, v = gm.linalg.eigh(a)
        assert.same({ 2, 3, 5 }, dims_of(w))
        assert.same({ 2, 3, 5, 5 }, dims_of(v))
        close(w, ref[1], ct, "eigh values")
        close(gm.linalg.eigvalsh(a), ref[1], ct, "eigvalsh")
        local vw = gm.cmul(v, w:view(2, 3, 1, 5))
        close(mm(vw, mT(v)), flat(a), ct, "V diag(w) V^T")
        close(mm(mT(v), v), flat(gm.eye(5, { ctype = ct }):expand(2, 3, 5, 5):contiguous()), ct, "V^T V")
      end)

      it("eig and eigvals: NumPy's eigenvalues (sorted), A V = V diag(w), unit columns", function()
        if not pend() then return end
        -- random general matrices have complex pairs; a rotation block has
        -- exactly i, -i; a triangular one repeated real values
        local av = vals(2 * 3 * 5 * 5, 21)
        local a = mk(ct, { 2, 3, 5, 5 }, av)
        local w, v = gm.linalg.eig(a)
        local cx = ct == "float" and "complex64" or "complex128"
        assert.equal(cx, w:dtype())
        assert.equal(cx, v:dtype())
        assert.same({ 2, 3, 5 }, dims_of(w))
        assert.same({ 2, 3, 5, 5 }, dims_of(v))
        local function parts(m)
          local re, im = {}, {}
          for i, z in ipairs(flat(m)) do re[i], im[i] = z.re, z.im end
          return re, im
        end
        local wr, wi = parts(w)
        local vr, vi = parts(v)
        local ewr, ewi = parts(gm.linalg.eigvals(a))
        local ref = numpy({ A = { { 2, 3, 5, 5 }, av }, WR = { { 2, 3, 5 }, wr }, WI = { { 2, 3, 5 }, wi },
          VR = { { 2, 3, 5, 5 }, vr }, VI = { { 2, 3, 5, 5 }, vi }, ER = { { 2, 3, 5 }, ewr }, EI = { { 2, 3, 5 }, ewi } },
          { "np.abs(np.sort_complex(WR + 1j * WI) - np.sort_complex(np.linalg.eigvals(A))).max()",
            "np.abs(np.sort_complex(ER + 1j * EI) - np.sort_complex(np.linalg.eigvals(A))).max()",
            "np.abs(A @ (VR + 1j * VI) - (VR + 1j * VI) * (WR + 1j * WI)[..., None, :]).max()",
            "np.abs(np.linalg.norm(VR + 1j * VI, axis=-2) - 1).max()",
            "np.abs(np.linalg.eigvals(A)).max()" })
        local scale = math.max(1, ref[5][1])
        -- eigenvalues are less well conditioned than the matrix: 10x the tolerance
        for i, what in ipairs { "eigenvalues", "eigvals", "A V - V diag(w)", "column norms - 1" } do
          assert(ref[i][1] <= 10 * TOL[ct] * scale, string.format("%s: off by %g (%s)", what, ref[i][1], ct))
        end
        local rot = gm.linalg.eig(mk(ct, { 3, 3 }, { 0, -1, 0, 1, 0, 0, 0, 0, 2.5 }))
        local rr, ri = parts(rot)
        close(rr, { 0, 0, 2.5 }, ct, "rotation, real parts")
        close(ri, { 1, -1, 0 }, ct, "rotation, imaginary parts (the pair's positive part first)")
        -- a complex stack (cgeev/zgeev): complex64 from complex64
        local cr, bv = vals(2 * 4 * 4, 23), vals(2 * 4 * 4, 22)
        local c = mk(ct, { 2, 4, 4 }, cr):as(cx) + mk(ct, { 2, 4, 4 }, bv):as(cx) * gm.complex(0, 1)
        local cw, cv = gm.linalg.eig(c)
        assert.equal(cx, cw:dtype())
        assert.same({ 2, 4, 4 }, dims_of(cv))
        local cwr, cwi = parts(cw)
        local cvr, cvi = parts(cv)
        local cref = numpy({ CR = { { 2, 4, 4 }, cr }, CI = { { 2, 4, 4 }, bv }, WR = { { 2, 4 }, cwr },
          WI = { { 2, 4 }, cwi }, VR = { { 2, 4, 4 }, cvr }, VI = { { 2, 4, 4 }, cvi } },
          { "np.abs(np.sort_complex(WR + 1j * WI) - np.sort_complex(np.linalg.eigvals(CR + 1j * CI))).max()",
            "np.abs((CR + 1j * CI) @ (VR + 1j * VI) - (VR + 1j * VI) * (WR + 1j * WI)[..., None, :]).max()",
            "np.abs(np.linalg.eigvals(CR + 1j * CI)).max()" })
        for i, what in ipairs { "complex eigenvalues", "complex A V - V diag(w)" } do
          assert(cref[i][1] <= 10 * TOL[ct] * math.max(1, cref[3][1]), string.format("%s: off by %g", what, cref[i][1]))
        end
        local e0 = gm.linalg.eigvals(mk(ct, { 2, 0, 0 }, {}))
        assert.same({ 2, 0 }, dims_of(e0))
        assert.equal(cx, e0:dtype())
      end)

      for _, shape in ipairs { { 3, 6, 4 }, { 3, 4, 6 }, { 5, 5 } } do
        it("svd of " .. table.concat(shape, "x") .. ": NumPy's s, u s vh = a, orthogonal u and vh", function()
          if not pend() then return end
          local av = vals(count(shape), 10)
          local a = mk(ct, shape, av)
          local m, n = shape[#shape - 1], shape[#shape]
          local k = math.min(m, n)
          local ref = numpy({ A = { shape, av } }, { "np.linalg.svd(A, compute_uv=False)" })
          close(gm.linalg.svdvals(a), ref[1], ct, "svdvals")
          local s3 = #shape == 3 and shape[1] or nil
          local function d(...) return s3 and { s3, ... } or { ... } end
          local u, s, vh = gm.linalg.svd(a, { full_matrices = false })
          assert.same(d(m, k), dims_of(u))
          assert.same(d(k), dims_of(s))
          assert.same(d(k, n), dims_of(vh))
          close(s, ref[1], ct, "svd s")
          close(mm(gm.cmul(u, s:view(d(1, k))), vh), av, ct, "u s vh")
          local uf, _, vf = gm.linalg.svd(a)
          assert.same(d(m, m), dims_of(uf))
          assert.same(d(n, n), dims_of(vf))
          close(mm(mT(uf), uf), flat(eye_like(ct, s3, m)), ct, "u^T u")
          close(mm(vf, mT(vf)), flat(eye_like(ct, s3, n)), ct, "vh vh^T")
        end)
      end

      it("matrix_rank, pinv and lstsq as NumPy", function()
        if not pend() then return end
        local xv, yv = vals(5 * 2, 11), vals(2 * 4, 12)
        local lowv = flat(mm(mk(ct, { 5, 2 }, xv), mk(ct, { 2, 4 }, yv))) -- rank 2
        local av, bv, b2v = vals(6 * 3, 13), vals(6, 14), vals(6 * 2, 15)
        local low, a, b, b2 = mk(ct, { 5, 4 }, lowv), mk(ct, { 6, 3 }, av), mk(ct, { 6 }, bv), mk(ct, { 6, 2 }, b2v)
        local ref = numpy({ L = { { 5, 4 }, lowv }, A = { { 6, 3 }, av }, B = { { 6 }, bv }, B2 = { { 6, 2 }, b2v } },
          { "np.linalg.pinv(L)", "np.linalg.pinv(A)", "np.linalg.lstsq(A, B, rcond=None)[0]", "np.linalg.lstsq(A, B, rcond=None)[1]",
            "np.linalg.lstsq(A, B2, rcond=None)[0]", "np.linalg.lstsq(A, B2, rcond=None)[1]",
            "np.linalg.lstsq(L, B[:5], rcond=None)[0]",
            "np.linalg.matrix_rank(np.stack([L, L[:, ::-1] * 0]))" })
        assert.equal(2, gm.linalg.matrix_rank(low))
        assert.equal(3, gm.linalg.matrix_rank(a))
        local stack = gm.zeros({ 2, 5, 4 }, { ctype = ct })
        stack[{ 1 }] = low
        local ranks = gm.linalg.matrix_rank(stack)
        assert.equal("int64", ranks:dtype())
        assert.same(ref[8], ranks:to_table(), "matrix_rank of a stack")
        close(gm.linalg.pinv(low), ref[1], ct, "pinv rank deficient")
        close(gm.linalg.pinv(a), ref[2], ct, "pinv")
        local x, res, rank, s = gm.linalg.lstsq(a, b)
        close(x, ref[3], ct, "lstsq x")
        close(res, ref[4], ct, "lstsq residuals")
        assert.equal(3, rank)
        assert.same({ 3 }, dims_of(s))
        local x2, res2 = gm.linalg.lstsq(a, b2)
        close(x2, ref[5], ct, "lstsq x (2 columns)")
        close(res2, ref[6], ct, "lstsq residuals (2 columns)")
        local xl, resl, rankl = gm.linalg.lstsq(low, mk(ct, { 5 }, { table.unpack(bv, 1, 5) }))
        close(xl, ref[7], ct, "lstsq rank deficient")
        assert.same({ 0 }, dims_of(resl))
        assert.equal(2, rankl)
      end)

      it("solve_triangular and matrix_power as NumPy", function()
        if not pend() then return end
        local av, bv = wellcond({ 4, 4 }, 16), vals(4 * 2, 17)
        local a, b = mk(ct, { 4, 4 }, av), mk(ct, { 4, 2 }, bv)
        local ref = numpy({ A = { { 4, 4 }, av }, B = { { 4, 2 }, bv } },
          { "np.linalg.solve(np.triu(A), B)", "np.linalg.solve(np.tril(A, -1) + np.eye(4), B)",
            "np.linalg.matrix_power(A / 4, 3)", "np.linalg.matrix_power(A, -2)", "np.linalg.matrix_power(A, 0)" })
        close(gm.linalg.solve_triangular(a, b, { upper = true }), ref[1], ct, "upper")
        close(gm.linalg.solve_triangular(a, b, { unit_diagonal = true }), ref[2], ct, "lower unit")
        close(gm.linalg.matrix_power(a * 0.25, 3), ref[3], ct, "power 3")
        close(gm.linalg.matrix_power(a, -2), ref[4], ct, "power -2")
        close(gm.linalg.matrix_power(a, 0), ref[5], ct, "power 0")
      end)

      it("solve_triangular: both triangles, unit diagonal, left = false, stacks, broadcasting", function()
        if not pend() then return end
        -- a is full: only the named triangle may be read
        local av, bv, cv, vv = wellcond({ 2, 1, 4, 4 }, 40), vals(3 * 4 * 2, 41), vals(3 * 2 * 4, 42), vals(4, 43)
        local a, b, c, v = mk(ct, { 2, 1, 4, 4 }, av), mk(ct, { 3, 4, 2 }, bv), mk(ct, { 3, 2, 4 }, cv),
          mk(ct, { 4 }, vv)
        local sw = "np.swapaxes(%s, -1, -2)"
        local right = function(t) return sw:format("np.linalg.solve(" .. sw:format(t) .. ", " .. sw:format("C[None]") .. ")") end
        local ref = numpy({ A = { { 2, 1, 4, 4 }, av }, B = { { 3, 4, 2 }, bv }, C = { { 3, 2, 4 }, cv },
          V = { { 4 }, vv } },
          { "np.linalg.solve(np.triu(A), B[None])", "np.linalg.solve(np.tril(A), B[None])",
            "np.linalg.solve(np.tril(A, -1) + np.eye(4), B[None])", "np.linalg.solve(np.triu(A, 1) + np.eye(4), B[None])",
            right("np.triu(A)"), right("np.tril(A, -1) + np.eye(4)"), "np.linalg.solve(np.tril(A[1, 0]), V)" })
        local st = gm.linalg.solve_triangular
        local x = st(a, b, { upper = true })
        assert.same({ 2, 3, 4, 2 }, dims_of(x))
        close(x, ref[1], ct, "upper")
        close(st(a, b), ref[2], ct, "lower")
        close(st(a, b, { unit_diagonal = true }), ref[3], ct, "lower unit")
        close(st(a, b, { upper = true, unit_diagonal = true, left = true }), ref[4], ct, "upper unit")
        local xr = st(a, c, { upper = true, left = false })
        assert.same({ 2, 3, 2, 4 }, dims_of(xr))
        close(xr, ref[5], ct, "upper, right side")
        close(st(a, c, { left = false, unit_diagonal = true }), ref[6], ct, "lower unit, right side")
        local a1 = a:select(1, 2):select(1, 1)
        local xv = st(a1:t():t(), v)
        assert.same({ 4 }, dims_of(xv))
        close(xv, ref[7], ct, "vector, strided a")
        assert.same(av[1], a[{ 1, 1, 1, 1 }]) -- inputs untouched
        assert.same(bv[1], b[{ 1, 1, 1 }])
      end)

      it("solve_triangular: zero on the diagonal, shapes and ctypes are clear errors", function()
        local st = gm.linalg.solve_triangular
        local z = mk(ct, { 3, 2, 2 }, { 1, 0, 0, 1, 2, 0, 0, 3, 1, 0, 5, 0 })
        local b = mk(ct, { 2, 1 }, { 1, 1 })
        assert.has_error(function() st(z, b) end,
          "solve_triangular: matrix 3 of the stack is singular (zero on the diagonal at 2)")
        -- the unit diagonal is never read: the same stack solves
        close(st(z, b, { unit_diagonal = true }), { 1, 1, 1, 1, 1, -4 }, ct, "unit diagonal of a singular stack")
        local sq = mk(ct, { 3, 3 }, wellcond({ 3, 3 }, 44))
        assert.has_error(function() st(sq, mk(ct, { 2, 1 }, { 1, 1 })) end,
          "bad argument #2 to 'solve_triangular' (b has 2 rows, a is 3x3)")
        assert.has_error(function() st(sq, mk(ct, { 3, 2 }, vals(6, 1)), { left = false }) end,
          "bad argument #2 to 'solve_triangular' (b has 2 columns, a is 3x3)")
        assert.has_error(function() st(sq, mk(ct, { 3 }, { 1, 2, 3 }), { left = false }) end,
          "bad argument #2 to 'solve_triangular' (b must be a matrix when left is false)")
        assert.has_error(function() st(mk(ct, { 2, 3 }, vals(6, 2)), b) end,
          "bad argument #1 to 'solve_triangular' (matrices must be square, are 2x3)")
        local other = ct == "float" and "double" or "float"
        assert.has_error(function() st(sq, mk(other, { 3, 1 }, { 1, 2, 3 })) end,
          "bad argument #2 to 'solve_triangular' (mixed ctypes " .. ct .. " and " .. other .. ")")
        assert.has_error(function() st(sq, mk(ct, { 3, 1 }, { 1, 2, 3 }), { lower = true }) end,
          "bad argument #3 to 'solve_triangular' (unknown option 'lower')")
        assert.has_error(function() st(mk(ct, { 2, 3, 3 }, vals(18, 3)), mk(ct, { 3, 3, 1 }, vals(9, 4))) end,
          "solve_triangular: cannot broadcast stacks 2 and 3")
      end)

      for _, shape in ipairs { { 3, 4, 4 }, { 2, 3, 5 }, { 5, 3 } } do
        it("lu of " .. table.concat(shape, "x") .. ": p l u = a, p a permutation, l unit lower, u upper", function()
          local d = shape
          local m, n = d[#d - 1], d[#d]
          local k = math.min(m, n)
          local a = mk(ct, d, vals(count(d), 45))
          local p, l, u = gm.linalg.lu(a)
          local s = {}
          for i = 1, #d - 2 do s[i] = d[i] end
          local function with(x, y) local r = { table.unpack(s) }; r[#r + 1], r[#r + 2] = x, y; return r end
          assert.same(with(m, m), dims_of(p))
          assert.same(with(m, k), dims_of(l))
          assert.same(with(k, n), dims_of(u))
          close(mm(p, mm(l, u)), flat(a), ct, "p l u")
          local lt, ut = l:to_table(), u:to_table()
          local pv = flat(p)
          for i = 1, #pv do assert.is_true(pv[i] == 0 or pv[i] == 1) end
          close(p:sum(-1), flat(gm.ones(with(m, 1), { ctype = ct })), ct, "p rows")
          close(p:sum(-2), flat(gm.ones(with(1, m), { ctype = ct })), ct, "p columns")
          local function each(t, depth, f)
            if depth == 0 then return f(t) end
            for _, x in ipairs(t) do each(x, depth - 1, f) end
          end
          each(lt, #s, function(mat)
            for i = 1, m do
              for j = 1, k do
                if j == i then assert.equal(1, mat[i][j]) elseif j > i then assert.equal(0, mat[i][j]) end
                if j < i then assert.is_true(math.abs(mat[i][j]) <= 1) end -- partial pivoting
              end
            end
          end)
          each(ut, #s, function(mat)
            for i = 1, k do for j = 1, i - 1 do assert.equal(0, mat[i][j]) end end
          end)
        end)
      end

      it("lu_factor and lu_solve as np.linalg.solve, with broadcasting; lu of a singular matrix", function()
        if not pend() then return end
        local av, bv = wellcond({ 2, 1, 4, 4 }, 46), vals(3 * 4 * 2, 47)
        local a, b = mk(ct, { 2, 1, 4, 4 }, av), mk(ct, { 3, 4, 2 }, bv)
        local ref = numpy({ A = { { 2, 1, 4, 4 }, av }, B = { { 3, 4, 2 }, bv } }, { "np.linalg.solve(A, B[None])" })
        local lu, piv = gm.linalg.lu_factor(a)
        assert.same({ 2, 1, 4, 4 }, dims_of(lu))
        assert.same({ 2, 1, 4 }, dims_of(piv))
        assert.equal("int64", piv:dtype())
        for _, x in ipairs(flat(piv)) do assert.is_true(math.type(x) == "integer" and x >= 1 and x <= 4) end
        local x = gm.linalg.lu_solve(lu, piv, b)
        assert.same({ 2, 3, 4, 2 }, dims_of(x))
        close(x, ref[1], ct, "lu_solve")
        -- float pivots of lu's ctype still work; bad ones raise
        close(gm.linalg.lu_solve(lu, piv:as(ct), b), ref[1], ct, "lu_solve, float pivots")
        assert.has_error(function() gm.linalg.lu_solve(lu, gm.zeros({ 2, 1, 4 }, { dtype = "int64" }), b) end)
        assert.has_error(function() gm.linalg.lu_solve(lu, gm.zeros({ 2, 1, 4 }, { dtype = "bool" }), b) end,
          "bad argument #2 to 'lu_solve' (an integer mat of pivots expected (lu_factor's), got bool mat)")
        assert.has_error(function() gm.linalg.lu_solve(lu, piv, mk(ct, { 3, 2 }, vals(6, 1))) end,
          "bad argument #3 to 'lu_solve' (b has 3 rows, lu is 4x4)")
        -- singular: factors, no error; U's last pivot is zero
        local p, l, u = gm.linalg.lu(mk(ct, { 2, 2 }, { 1, 2, 2, 4 }))
        close(mm(p, mm(l, u)), { 1, 2, 2, 4 }, ct, "p l u of a singular matrix")
        assert.equal(0, u[{ 2, 2 }])
      end)

      it("solve and inv with pivoting, on both sides of the host's small-matrix LU (n <= 16)", function()
        if not pend() then return end
        for _, n in ipairs { 5, 16, 17, 20 } do
          -- no dominant diagonal: partial pivoting swaps rows
          local av, bv = vals(2 * n * n, 60 + n), vals(2 * n * 3, 61 + n)
          av[1] = 0 -- a zero where the first pivot would be without swaps
          local a, b = mk(ct, { 2, n, n }, av), mk(ct, { 2, n, 3 }, bv)
          local ref = numpy({ A = { { 2, n, n }, av }, B = { { 2, n, 3 }, bv } },
            { "np.linalg.solve(A, B)", "np.linalg.inv(A)" })
          -- random matrices are less well conditioned: a looser bound in float
          local tol = TOL[ct]
          TOL[ct] = ct == "float" and 2e-3 or 1e-9
          local ok, err = pcall(function()
            close(gm.linalg.solve(a, b), ref[1], ct, "solve " .. n)
            close(gm.linalg.inv(a), ref[2], ct, "inv " .. n)
          end)
          TOL[ct] = tol
          assert(ok, err)
        end
      end)

      it("matmul of stacks: small odd orders, orders past the small-product loop, shared operands", function()
        if not pend() then return end
        local xv, yv, pv, qv = vals(4 * 3 * 5, 50), vals(5 * 7, 51), vals(2 * 40 * 33, 52), vals(33 * 40, 53)
        local x, y, p, q = mk(ct, { 4, 3, 5 }, xv), mk(ct, { 5, 7 }, yv), mk(ct, { 2, 40, 33 }, pv), mk(ct, { 33, 40 }, qv)
        local sq = mk(ct, { 3, 5, 5 }, vals(75, 54))
        local ref = numpy({ X = { { 4, 3, 5 }, xv }, Y = { { 5, 7 }, yv }, P = { { 2, 40, 33 }, pv },
          Q = { { 33, 40 }, qv }, S = { { 3, 5, 5 }, vals(75, 54) } },
          { "X @ Y", "P @ Q", "S @ S", "Q.T @ Q", "Q[:, 1:31] @ Q.T[:30]", "Q @ Q.T" })
        local r = mm(x, y)
        assert.same({ 4, 3, 7 }, dims_of(r))
        close(r, ref[1], ct, "3x5 @ 5x7 stack")
        close(mm(p, q), ref[2], ct, "40x33 @ 33x40 stack")
        close(mm(sq, sq), ref[3], ct, "a stack times itself")
        -- two matrices (the C product's path): transposed and narrowed views
        close(mm(q:t(), q), ref[4], ct, "Q^T @ Q")
        close(gm.matmul(q:narrow(2, 2, 30), q:t():narrow(1, 1, 30)), ref[5], ct, "views of Q")
        -- one block read transposed and not: the host's syrk, both triangles
        local qq = gm.matmul(q, q:t())
        close(qq, ref[6], ct, "Q @ Q^T")
        assert.are.same(qq:to_table(), qq:t():to_table(), "Q @ Q^T is exactly symmetric")
        assert.are.same(mm(q:t(), q):to_table(), (q:t() * q):to_table(), "gm.matmul and * agree")
      end)

      it("trace, diagonal, outer, cross, vecdot, matrix_transpose, tensordot, matmul as NumPy", function()
        if not pend() then return end
        local av, xv, yv = vals(2 * 3 * 4, 18), vals(3 * 3, 19), vals(3, 20)
        local tv, uv = vals(2 * 3 * 4, 21), vals(3 * 4 * 5, 22)
        local a, x, y = mk(ct, { 2, 3, 4 }, av), mk(ct, { 3, 3 }, xv), mk(ct, { 3 }, yv)
        local t, u = mk(ct, { 2, 3, 4 }, tv), mk(ct, { 3, 4, 5 }, uv)
        local ref = numpy({ A = { { 2, 3, 4 }, av }, X = { { 3, 3 }, xv }, Y = { { 3 }, yv },
          T = { { 2, 3, 4 }, tv }, U = { { 3, 4, 5 }, uv } },
          { "np.trace(A, axis1=-2, axis2=-1)", "np.trace(A, offset=1, axis1=-2, axis2=-1)",
            "np.trace(A, offset=-2, axis1=-2, axis2=-1)",
            "np.diagonal(A, offset=2, axis1=-2, axis2=-1)", "np.outer(Y, X[0])", "np.cross(X, Y)",
            "np.sum(A * T, axis=-1)", "np.sum(X * X, axis=0)", "np.swapaxes(A, -1, -2)",
            "np.tensordot(T, U, axes=2)", "np.tensordot(T, U, axes=([1], [0]))",
            "np.matmul(A, U[0])", "np.matmul(Y, X)", "np.trace(X)" })
        close(gm.linalg.trace(a), ref[1], ct, "trace")
        close(gm.linalg.trace(a, { offset = 1 }), ref[2], ct, "trace offset 1")
        close(gm.linalg.trace(a, { offset = -2 }), ref[3], ct, "trace offset -2")
        close(gm.linalg.diagonal(a, { offset = 2 }), ref[4], ct, "diagonal")
        assert.is_number(gm.linalg.trace(x))
        close({ gm.linalg.trace(x) }, ref[14], ct, "trace of one matrix")
        close(gm.linalg.outer(y, x[{ 1 }]), ref[5], ct, "outer")
        close(gm.linalg.cross(x, y), ref[6], ct, "cross")
        close(gm.vecdot(a, t), ref[7], ct, "vecdot")
        close(gm.linalg.vecdot(x, x, { axis = 1 }), ref[8], ct, "vecdot axis 1")
        assert.is_number(gm.vecdot(y, y))
        close(gm.matrix_transpose(a), ref[9], ct, "matrix_transpose")
        close(gm.tensordot(t, u), ref[10], ct, "tensordot 2")
        close(gm.linalg.tensordot(t, u, { axes = { { 2 }, { 1 } } }), ref[11], ct, "tensordot lists")
        close(gm.linalg.matmul(a, u[{ 1 }]), ref[12], ct, "matmul broadcast")
        close(gm.linalg.matmul(y, x), ref[13], ct, "matmul vector")
      end)

      it("vector_norm and matrix_norm as NumPy", function()
        if not pend() then return end
        local av = vals(2 * 3 * 4, 23)
        local a = mk(ct, { 2, 3, 4 }, av)
        local inf = math.huge
        local cases = {
          { {}, "np.sqrt(np.sum(A * A))" },
          { { axis = -1 }, "np.linalg.norm(A, axis=-1)" },
          { { axis = 2, ord = 1 }, "np.linalg.norm(A, axis=1, ord=1)" },
          { { axis = { 1, 3 }, ord = inf }, "np.max(np.abs(A), axis=(0, 2))" },
          { { axis = 1, ord = -inf, keepdims = true }, "np.linalg.norm(A, axis=0, ord=-np.inf, keepdims=True)" },
          { { ord = 3 }, "np.sum(np.abs(A) ** 3) ** (1 / 3)" },
          { { ord = 0, axis = 3 }, "np.linalg.norm(A, ord=0, axis=2)" },
        }
        local mcases = { "fro", "nuc", inf, -inf, 1, -1, 2, -2 }
        local exprs = {}
        for i, c in ipairs(cases) do exprs[i] = c[2] end
        for _, o in ipairs(mcases) do
          local py = o == inf and "np.inf" or o == -inf and "-np.inf" or type(o) == "string" and ("'" .. o .. "'") or tostring(o)
          exprs[#exprs + 1] = "np.linalg.norm(A, ord=" .. py .. ", axis=(-2, -1))"
        end
        exprs[#exprs + 1] = "np.linalg.norm(A[0], ord=2)"
        local ref = numpy({ A = { { 2, 3, 4 }, av } }, exprs)
        for i, c in ipairs(cases) do
          close(gm.linalg.vector_norm(a, c[1]), ref[i], ct, c[2])
        end
        assert.is_number(gm.linalg.vector_norm(a))
        if ct == "float" then -- (the whole-mat norm is a BLAS dot: its result rounded to float32)
          local v = gm.linalg.vector_norm(a)
          assert.are.equal(v, string.unpack("<f", string.pack("<f", v)))
        end
        assert.same({ 1, 3, 4 }, dims_of(gm.linalg.vector_norm(a, { axis = 1, keepdims = true })))
        for i, o in ipairs(mcases) do
          close(gm.linalg.matrix_norm(a, { ord = o }), ref[#cases + i], ct, "matrix_norm " .. tostring(o))
        end
        local one = gm.linalg.matrix_norm(a[{ 1 }], { ord = 2 })
        assert.is_number(one)
        close({ one }, ref[#ref], ct, "matrix_norm of one matrix")
        assert.same({ 2, 1, 1 }, dims_of(gm.linalg.matrix_norm(a, { keepdims = true })))
      end)

      it("bad shapes, ctypes and options are clear errors", function()
        local a = mk(ct, { 2, 3 }, vals(6, 24))
        local sq = mk(ct, { 3, 3 }, wellcond({ 3, 3 }, 25))
        local other = mk(ct == "float" and "double" or "float", { 3 }, { 1, 2, 3 })
        assert.has_error(function() gm.linalg.inv(a) end, "bad argument #1 to 'inv' (matrices must be square, are 2x3)")
        assert.has_error(function() gm.linalg.det(mk(ct, { 3 }, { 1, 2, 3 })) end,
          "bad argument #1 to 'det' (needs at least 2 dimensions, has 1)")
        assert.has_error(function() gm.linalg.solve(sq, other) end,
          "bad argument #2 to 'solve' (mixed ctypes " .. ct .. " and " .. other:ctype() .. ")")
        assert.has_error(function() gm.linalg.solve(sq, mk(ct, { 2 }, { 1, 2 })) end,
          "bad argument #2 to 'solve' (b has 2 rows, a is 3x3)")
        assert.has_error(function() gm.linalg.solve(mk(ct, { 2, 3, 3 }, vals(18, 1)), mk(ct, { 3, 3, 1 }, vals(9, 2))) end,
          "solve: cannot broadcast stacks 2 and 3")
        assert.has_error(function() gm.linalg.qr(sq, { mode = "r" }) end,
          "bad argument #2 to 'qr' (mode must be 'reduced' or 'complete', got r)")
        assert.has_error(function() gm.linalg.cholesky(sq, { lower = true }) end,
          "bad argument #2 to 'cholesky' (unknown option 'lower')")
        assert.has_error(function() gm.linalg.matrix_norm(sq, { ord = 3 }) end,
          "bad argument #2 to 'matrix_norm' (ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got 3)")
        assert.has_error(function() gm.linalg.svd("x") end, "bad argument #1 to 'svd' (gpumat.mat expected, got string)")
        assert.has_error(function() gm.linalg.matrix_power(sq, 1.5) end,
          "bad argument #2 to 'matrix_power' (integer expected, got float)")
        assert.has_error(function() gm.linalg.inv(sq, 1) end, "bad argument #2 to 'inv' (no value expected)")
        assert.has_error(function() gm.linalg.eig(mk(ct, { 2, 3 }, vals(6, 1))) end,
          "bad argument #1 to 'eig' (matrices must be square, are 2x3)")
        assert.has_error(function() gm.linalg.eig(gm.zeros({ 2, 3 }, { dtype = "complex64" })) end,
          "bad argument #1 to 'eig' (matrices must be square, are 2x3)")
        assert.has_error(function() gm.linalg.eigvals(gm.zeros(3, 3, { ctype = "int32" })) end,
          "bad argument #1 to 'eigvals' (an int32 mat; this function takes float32/float64 mats (convert with " ..
          "m:as(\"float64\")))")
        assert.has_error(function() gm.linalg.eig(mk(ct, { 2, 2 }, { 1, 0 / 0, 0, 1 })) end,
          "eig: the matrix contains NaN or infinity")
        assert.has_error(function() gm.linalg.trace(sq, { dtype = "int8" }) end,
          "bad argument #2 to 'trace' (dtype must be a floating ctype, got int8)")
        local other_ct = ct == "float" and "double" or "float"
        local tr = gm.linalg.trace(mk(ct, { 2, 2, 2 }, { 1, 2, 3, 4, 5, 6, 7, 8 }), { dtype = other_ct })
        assert.equal(other_ct, tr:ctype())
        assert.same({ 5, 13 }, flat(tr))
      end)

      it("strided views in, and 1x1 and empty edges", function()
        local base = mk(ct, { 4, 4 }, wellcond({ 4, 4 }, 26))
        local view = base:t() -- not contiguous: copied before any job
        local q, r = gm.linalg.qr(view)
        close(mm(q, r), flat(view), ct, "qr of a transposed view")
        local w1 = gm.linalg.eigvalsh(view + base)
        local w2 = gm.linalg.eigvalsh((base + view):copy())
        close(w1, flat(w2), ct, "eigvalsh of a view sum")
        local one = mk(ct, { 1, 1 }, { -2 })
        assert.equal(-2, gm.linalg.det(one))
        close(gm.linalg.inv(one), { -0.5 }, ct, "inv 1x1")
        local u, s, vh = gm.linalg.svd(gm.zeros({ 3, 0 }, { ctype = ct }))
        assert.same({ 3, 3 }, dims_of(u))
        close(u, flat(gm.eye(3, { ctype = ct })), ct, "u of 3x0")
        assert.same({ 0 }, dims_of(s))
        assert.same({ 0, 0 }, dims_of(vh))
      end)

      it("empty matrices", function()
        local z = gm.zeros({ 2, 0, 0 }, { ctype = ct })
        assert.same({ 2, 0, 0 }, dims_of(gm.linalg.inv(z)))
        close(gm.linalg.det(z), { 1, 1 }, ct, "det of 0x0")
        local w = gm.linalg.eigvalsh(z)
        assert.same({ 2, 0 }, dims_of(w))
        assert.same({ 2, 0 }, dims_of(gm.linalg.svdvals(gm.zeros({ 2, 3, 0 }, { ctype = ct }))))
      end)
    end)
  end

  -- complex64/complex128: every function through LAPACK's c/z routines,
  -- against NumPy and by invariants where the results are not unique.
  -- The inputs are the same float64 values for both types (the Hermitian
  -- ones made by NumPy), so one python3 process gives every reference:
  -- CREF[name] a flat list, complex results as name_re and name_im.
  local CR = {
    AR = { { 2, 3, 3 }, wellcond({ 2, 3, 3 }, 31) }, AI = { { 2, 3, 3 }, vals(18, 32) },
    BR = { { 2, 3, 2 }, vals(12, 33) }, BI = { { 2, 3, 2 }, vals(12, 34) },
    CR = { { 2, 4, 3 }, vals(24, 41) }, CI = { { 2, 4, 3 }, vals(24, 42) },
    WR = { { 3, 4 }, vals(12, 43) }, WI = { { 3, 4 }, vals(12, 44) },
    QR = { { 3, 3 }, wellcond({ 3, 3 }, 45) }, QI = { { 3, 3 }, vals(9, 46) },
    VR = { { 4 }, vals(4, 47) }, VI = { { 4 }, vals(4, 48) },
  }
  local CEXPRS = {
    { "S", "(S := (A := AR + 1j * AI) @ np.conj(np.swapaxes(A, -1, -2)) + np.eye(3))", true },
    { "H", "(H := np.conj(np.swapaxes(C := CR + 1j * CI, -1, -2)) @ C)", true },
    { "solve", "np.linalg.solve(A, BR + 1j * BI)", true }, { "inv", "np.linalg.inv(A)", true },
    { "det", "np.linalg.det(A)", true }, { "sign", "np.linalg.slogdet(A)[0]", true },
    { "logabs", "np.linalg.slogdet(A)[1]" }, { "chol", "np.linalg.cholesky(S)", true },
    { "cholu", "np.conj(np.swapaxes(np.linalg.cholesky(S), -1, -2))", true },
    { "tri", "np.linalg.solve(np.tril(A), BR + 1j * BI)", true },
    { "vsolve", "np.linalg.solve(A[1], BR[1, :, 0] + 1j * BI[1, :, 0])", true },
    { "pinv", "np.linalg.pinv(C)", true }, { "lstsq", "np.linalg.lstsq(C[0], V := VR + 1j * VI, rcond=None)[0]", true },
    { "res", "np.linalg.lstsq(C[0], V, rcond=None)[1]" },
    { "mp3", "np.linalg.matrix_power(Q := QR + 1j * QI, 3)", true }, { "mpm2", "np.linalg.matrix_power(Q, -2)", true },
    { "cross", "np.cross(Q[0], Q[1])", true }, { "outer", "np.outer(Q[0], V[:3])", true },
    { "trace", "np.trace(Q)", true }, { "diag", "np.diagonal(Q, 1)", true },
    { "svals", "np.linalg.svd(C, compute_uv=False)" },
    { "wvals", "np.linalg.svd(WR + 1j * WI, compute_uv=False)" }, { "hvals", "np.linalg.eigvalsh(H)" },
    { "mnorm", "[np.linalg.norm(Q, o) for o in ('fro', 'nuc', 1, 2, np.inf, -1, -2)]" },
    { "vnorm", "[np.linalg.norm(V, o) for o in (2, 1, np.inf, 0, 3)]" },
    { "rank", "np.linalg.matrix_rank(np.outer(V, V))" },
  }
  local CREF
  local function cref()
    if CREF then return CREF end
    local exprs, names = {}, {}
    for _, e in ipairs(CEXPRS) do
      for _, part in ipairs(e[3] and { "real", "imag" } or { false }) do
        names[#names + 1] = part and e[1] .. "_" .. part:sub(1, 2) or e[1]
        exprs[#exprs + 1] = part and "(" .. e[2] .. ")." .. part or e[2]
      end
    end
    local out = numpy(CR, exprs)
    CREF = {}
    for i, n in ipairs(names) do CREF[n] = out[i] end
    return CREF
  end

  for _, cx in ipairs { "complex64", "complex128" } do
    describe(cx, function()
      local rt = cx == "complex64" and "float" or "double"
      local I = gm.complex(0, 1)
      local function cmk(dims, re, im) return mk(rt, dims, re):as(cx) + mk(rt, dims, im):as(cx) * I end
      local function input(name) return cmk(CR[name .. "R"][1], CR[name .. "R"][2], CR[name .. "I"][2]) end
      local function parts(m)
        local re, im = {}, {}
        for i, z in ipairs((gm.iscomplex(m) or type(m) == "number") and { m } or flat(m)) do
          if type(z) == "number" then z = { re = z, im = 0 } end
          re[i], im[i] = z.re, z.im
        end
        return re, im
      end
      -- m's parts against NumPy's complex result name, or against {re, im}
      local function cclose(m, name, what)
        local re, im = parts(m)
        local ref = type(name) == "table" and name or { CREF[name .. "_re"], CREF[name .. "_im"] }
        close(re, ref[1], cx, what .. " (real part)")
        close(im, ref[2], cx, what .. " (imaginary part)")
      end
      local function ref_mat(name, dims) return cmk(dims, CREF[name .. "_re"], CREF[name .. "_im"]) end
      local cT = function(m) return gm.conj(mT(m)) end
      local function eye_c(s, n) return eye_like(rt, s, n):as(cx) end
      local function pend() if not NUMPY then pending("python3 with numpy is not installed") end return NUMPY end

      it("solve, inv, det, slogdet, cholesky, lu, lu_solve, solve_triangular as NumPy", function()
        if not pend() then return end
        cref()
        local a, b = input("A"), input("B")
        local spd = ref_mat("S", { 2, 3, 3 }) -- Hermitian positive definite
        cclose(gm.linalg.solve(a, b), "solve", "solve")
        cclose(gm.linalg.inv(a), "inv", "inv")
        local d = gm.linalg.det(a)
        assert.equal(cx, d:dtype())
        cclose(d, "det", "det")
        local sign, logabs = gm.linalg.slogdet(a)
        cclose(sign, "sign", "slogdet sign")
        assert.equal(rt, logabs:ctype())
        close(logabs, CREF.logabs, cx, "slogdet logabs")
        local d1 = gm.linalg.det(a:select(1, 1):contiguous()) -- one matrix: a gm.complex value
        close({ d1.re, d1.im }, { CREF.det_re[1], CREF.det_im[1] }, cx, "det of one matrix")
        cclose(gm.linalg.cholesky(spd), "chol", "cholesky")
        cclose(gm.linalg.cholesky(spd, { upper = true }), "cholu", "cholesky upper (L^H)")
        cclose(gm.linalg.solve_triangular(a, b, { upper = false }), "tri", "solve_triangular")
        cclose(gm.linalg.solve(a:select(1, 2):contiguous(), b:select(1, 2):select(2, 1):contiguous()), "vsolve",
          "solve of a vector")
        local lu, piv = gm.linalg.lu_factor(a)
        assert.equal("int64", piv:dtype())
        cclose(gm.linalg.lu_solve(lu, piv, b), "solve", "lu_solve")
        local p, l, u = gm.linalg.lu(a)
        cclose(mm(p, mm(l, u)), { CR.AR[2], CR.AI[2] }, "p l u")
        -- a singular complex matrix and one not positive definite name the index
        local sing = a:copy()
        for j = 1, 3 do sing[{ 2, 3, j }] = 0 end -- row 3 of matrix 2
        assert.has_error(function() gm.linalg.solve(sing, b) end,
          "solve: matrix 2 of the stack is singular (U(3,3) is zero)")
        assert.has_error(function() gm.linalg.inv(sing) end, "inv: matrix 2 of the stack is singular (U(3,3) is zero)")
        local sd, ss = gm.linalg.slogdet(sing)
        cclose(sd, { { CREF.sign_re[1], 0 }, { CREF.sign_im[1], 0 } }, "slogdet sign of a singular one")
        close({ flat(ss)[1] }, { CREF.logabs[1] }, cx, "slogdet logabs beside a singular one")
        assert.equal(-math.huge, flat(ss)[2])
        -- MGL's gm.invert / gm.logdet on one complex matrix, with their messages
        local a1 = a:select(1, 1):contiguous()
        local inv1 = {}
        for k = 1, 9 do inv1[k] = CREF.inv_re[k] end
        local inv1i = {}
        for k = 1, 9 do inv1i[k] = CREF.inv_im[k] end
        cclose(gm.invert(a1), { inv1, inv1i }, "gm.invert")
        local v, s1 = gm.logdet(a1)
        close({ v }, { CREF.logabs[1] }, cx, "gm.logdet value")
        close({ s1.re, s1.im }, { CREF.sign_re[1], CREF.sign_im[1] }, cx, "gm.logdet sign")
        local sing2 = sing:select(1, 2):contiguous()
        assert.has_error(function() gm.invert(sing2) end, "invert: matrix is singular (zero pivot in row 3)")
        local sv, ssign = gm.logdet(sing2)
        assert.are.same({ -math.huge, 0, 0 }, { sv, ssign.re, ssign.im })
        local nanm = a1:copy()
        nanm[{ 1, 2 }] = 0 / 0
        assert.has_error(function() gm.logdet(nanm) end, "logdet: matrix contains NaN or infinity (getrf)")
        local bad = spd:copy()
        bad[{ 2, 2, 2 }] = -5
        assert.has_error(function() gm.linalg.cholesky(bad) end,
          "cholesky: matrix 2 of the stack is not positive definite (leading minor 2)")
      end)

      it("qr, eigh, svd by invariants; pinv, lstsq, rank, norms and the rest as NumPy", function()
        if not pend() then return end
        cref()
        local a, wide, sq, b = input("C"), input("W"), input("Q"), input("V")
        local q, r = gm.linalg.qr(a)
        cclose(mm(q, r), { parts(a) }, "q r")
        cclose(mm(cT(q), q), { parts(eye_c(2, 3)) }, "q^H q")
        local h = ref_mat("H", { 2, 3, 3 })
        local w, v = gm.linalg.eigh(h)
        assert.equal(rt, w:ctype())
        close(w, CREF.hvals, cx, "eigh's eigenvalues")
        cclose(mm(h, v), { parts(gm.cmul(v, w:view(2, 1, 3))) }, "A V = V diag(w)")
        cclose(mm(cT(v), v), { parts(eye_c(2, 3)) }, "V^H V")
        close(gm.linalg.eigvalsh(h), CREF.hvals, cx, "eigvalsh")
        for _, m in ipairs { a, wide } do
          local u, sv, vh = gm.linalg.svd(m, { full_matrices = false })
          assert.equal(rt, sv:ctype())
          local k = sv:dims()[#sv:dims()]
          local sd = #m:dims() == 3 and { 2, 1, k } or { 1, k }
          cclose(mm(gm.cmul(u, sv:view(sd)), vh), { parts(m) }, "u s vh")
          local uf = gm.linalg.svd(m)
          local n = uf:dims()[#uf:dims()]
          cclose(mm(cT(uf), uf), { parts(eye_c(#m:dims() == 3 and 2 or nil, n)) }, "u^H u")
        end
        close(gm.linalg.svdvals(a), CREF.svals, cx, "svdvals")
        close(gm.linalg.svdvals(wide), CREF.wvals, cx, "svdvals of a wide one")
        cclose(gm.linalg.pinv(a), "pinv", "pinv")
        local lx, res, rank, ls = gm.linalg.lstsq(a:select(1, 1):contiguous(), b)
        cclose(lx, "lstsq", "lstsq x")
        close(res, CREF.res, cx, "lstsq residuals")
        assert.equal(3, rank)
        close(ls, { table.unpack(CREF.svals, 1, 3) }, cx, "lstsq s")
        cclose(gm.linalg.matrix_power(sq, 3), "mp3", "matrix_power 3")
        cclose(gm.linalg.matrix_power(sq, -2), "mpm2", "matrix_power -2")
        cclose(gm.linalg.cross(sq:select(1, 1), sq:select(1, 2)), "cross", "cross")
        cclose(gm.linalg.outer(sq:select(1, 1):contiguous(), b:narrow(1, 1, 3):contiguous()), "outer", "outer")
        cclose(gm.linalg.trace(sq), "trace", "trace")
        cclose(gm.linalg.diagonal(sq, { offset = 1 }), "diag", "diagonal")
        local mn = {}
        for i, o in ipairs { "fro", "nuc", 1, 2, math.huge, -1, -2 } do mn[i] = gm.linalg.matrix_norm(sq, { ord = o }) end
        close(mn, CREF.mnorm, cx, "matrix_norm")
        local vn = {}
        for i, o in ipairs { 2, 1, math.huge, 0, 3 } do vn[i] = gm.linalg.vector_norm(b, { ord = o }) end
        close(vn, CREF.vnorm, cx, "vector_norm")
        assert.equal(math.tointeger(CREF.rank[1]), gm.linalg.matrix_rank(gm.linalg.outer(b, b)))
      end)
    end)
  end
end)
