-- gm.linalg on cuSOLVER on a real GPU (pending without one): each
-- factorisation of a stack gives the host's (LAPACK's) results within the
-- ctype's tolerance, or the same invariants where the factors are not
-- unique, and its results stay on the device.  #outermost: not wrapped by
-- spec/helper.lua.
local gm = require "gpumat"
local need_gpu, CUDA = require("gpu_case")(_ENV)

local TOL = { float = 1e-4, double = 1e-10, complex64 = 1e-4, complex128 = 1e-10 }

local vals = require("numpy_ref").vals

-- elementwise within the tolerance (complex elements: each part, against
-- the modulus)
local function close(a, b, ct, what)
  local ta, tb = a:view(-1):to_table(), b:view(-1):to_table()
  assert.are.equal(#tb, #ta, what)
  for i = 1, #tb do
    local x, y = ta[i], tb[i]
    if type(y) == "number" then x, y = { re = x, im = 0 }, { re = y, im = 0 } end
    local scale = math.max(1, math.sqrt(y.re * y.re + y.im * y.im))
    if math.abs(x.re - y.re) > TOL[ct] * scale or math.abs(x.im - y.im) > TOL[ct] * scale then
      error(string.format("%s[%d]: device %s, host %s (%s)", what, i, tostring(ta[i]), tostring(tb[i]), ct), 2)
    end
  end
end

describe("gm.linalg on cuSOLVER", function()
  for _, ct in ipairs { "float", "double" } do
    it("solve, inv, det, cholesky, eigvalsh, svdvals match the host; qr and svd reconstruct (" .. ct .. ") #outermost",
      function()
        if not need_gpu() then return end
        local n, L = 6, gm.linalg
        local g = gm.mat(3 * 2 * n * n, { ctype = ct, initial_contents = vals(3 * 2 * n * n, 1) }):reshape(3, 2, n, n)
        local spd = L.matmul(g, L.matrix_transpose(g)) + gm.eye(n, { ctype = ct }) * n
        local b = gm.mat(n * 2, { ctype = ct, initial_contents = vals(n * 2, 2) }):reshape(n, 2)
        local host = { L.solve(spd, b), L.inv(spd), L.det(spd), L.cholesky(spd), L.eigvalsh(spd), L.svdvals(g) }
        gm.with_cuda(CUDA, function()
          local ds, db = spd:copy(), b:copy()
          gm.scal_(1, ds)
          gm.scal_(1, db)
          local dev = { L.solve(ds, db), L.inv(ds), L.det(ds), L.cholesky(ds), L.eigvalsh(ds), L.svdvals(g) }
          assert.are.equal("C", dev[1]:facets()) -- before close reads them on the host
          for i, what in ipairs { "solve", "inv", "det", "cholesky", "eigvalsh", "svdvals" } do
            close(dev[i], host[i], ct, what)
          end
          local q, r = L.qr(g)
          close(L.matmul(q, r), g, ct, "q r")
          local u, s, vh = L.svd(g, { full_matrices = false })
          close(L.matmul(gm.cmul(u, s:view(3, 2, 1, n)), vh), g, ct, "u s vh")
          local w, v = L.eigh(ds)
          close(L.matmul(gm.cmul(v, w:view(3, 2, 1, n)), L.matrix_transpose(v)), ds, ct, "v w v^T")
          local sing = gm.zeros({ 2, 2, 2 }, { ctype = ct })
          sing[{ 1 }] = gm.eye(2, { ctype = ct })
          assert.has_error(function() L.inv(sing) end, "inv: matrix 2 of the stack is singular (U(1,1) is zero)")
        end)
      end)
  end
  -- the complex rows (cuSOLVER's C/Z calls, the batched ones for these
  -- stacks of 6x6 matrices) and gesvdjBatched (stacks up to 32x32, real
  -- and complex; a tall stack narrows U)
  for _, ct in ipairs { "float", "double", "complex64", "complex128" } do
    it("complex rows and gesvdjBatched match the host; qr, eigh and svd reconstruct (" .. ct .. ") #outermost",
      function()
        if not need_gpu() then return end
        local n, L = 6, gm.linalg
        local rt = ({ complex64 = "float", complex128 = "double" })[ct] or ct
        local function mk(dims, seed)
          local c = 1
          for _, d in ipairs(dims) do c = c * d end
          local re = gm.mat(c, { ctype = rt, initial_contents = vals(c, seed) }):reshape(dims)
          if rt == ct then return re end
          local im = gm.mat(c, { ctype = rt, initial_contents = vals(c, seed + 1) }):reshape(dims)
          return re:as(ct) + im:as(ct) * gm.complex(0, 1)
        end
        local function cT(m) return gm.conj(L.matrix_transpose(m)) end
        local g, tall, b = mk({ 3, 2, n, n }, 11), mk({ 3, 7, 4 }, 13), mk({ n, 2 }, 15)
        local spd = L.matmul(g, cT(g)) + gm.eye(n, { ctype = ct }) * n
        local low = L.cholesky(spd)
        local host = { L.solve(spd, b), L.inv(spd), L.det(spd), low, L.eigvalsh(spd), L.svdvals(g), L.svdvals(tall),
          L.solve_triangular(low, b, { upper = false }) }
        gm.with_cuda(CUDA, function()
          local ds, db, dg, dt = spd:copy(), b:copy(), g:copy(), tall:copy()
          for _, m in ipairs { ds, db, dg, dt } do m:positive_() end -- on the device (an identity op there)
          local dlow = L.cholesky(ds)
          local dev = { L.solve(ds, db), L.inv(ds), L.det(ds), dlow, L.eigvalsh(ds), L.svdvals(dg), L.svdvals(dt),
            L.solve_triangular(dlow, db, { upper = false }) }
          assert.are.equal("C", dev[1]:facets())
          for i, what in ipairs { "solve", "inv", "det", "cholesky", "eigvalsh", "svdvals (gesvdjBatched)",
            "svdvals of a tall stack", "solve_triangular" } do
            close(dev[i], host[i], ct, what)
          end
          local q, r = L.qr(dg)
          close(L.matmul(q, r), g, ct, "q r")
          local w, v = L.eigh(ds)
          close(L.matmul(gm.cmul(v, w:view(3, 2, 1, n)), cT(v)), spd, ct, "v w v^H")
          for _, full in ipairs { false, true } do
            local u, s, vh = L.svd(dt, { full_matrices = full })
            local uk = full and u:narrow(3, 1, 4) or u
            close(L.matmul(gm.cmul(uk, s:view(3, 1, 4)), vh), tall, ct, "u s vh, full " .. tostring(full))
            local k = full and 7 or 4
            close(L.matmul(cT(u), u), gm.eye(k, { ctype = ct }):expand({ 3, k, k }):contiguous(), ct, "u^H u")
            close(L.matmul(vh, cT(vh)), gm.eye(4, { ctype = ct }):expand({ 3, 4, 4 }):contiguous(), ct, "vh vh^H")
          end
        end)
      end)
  end
  -- eig on cusolverDnXgeev: eigenvalues the host's (as a set: the order
  -- may differ), A v = w v for every column, results on the device
  for _, ct in ipairs { "float", "double" } do
    it("eig and eigvals match the host's eigenvalues; A v = w v (" .. ct .. ") #outermost", function()
      if not need_gpu() then return end
      local n, L = 5, gm.linalg
      local a = gm.mat(2 * n * n, { ctype = ct, initial_contents = vals(2 * n * n, 7) }):reshape(2, n, n)
      local hw = L.eigvals(a):view(-1):to_table()
      gm.with_cuda(CUDA, function()
        local da = a:copy()
        gm.scal_(1, da)
        local w, v = L.eig(da)
        assert.are.equal("C", w:facets())
        local wt, vt, at = w:to_table(), v:to_table(), a:to_table()
        local tol = TOL[ct] * 10
        for k = 1, 2 do
          for j = 1, n do
            local z, best = wt[k][j], math.huge
            for i = 1, n do
              local h = hw[(k - 1) * n + i]
              best = math.min(best, math.abs(z.re - h.re) + math.abs(z.im - h.im))
            end
            assert(best <= tol * 10, string.format("eigenvalue %d of matrix %d: %s not the host's", j, k, tostring(z)))
            for r = 1, n do -- (A v)_r - w v_r for column j
              local re, im = 0, 0
              for c = 1, n do re, im = re + at[k][r][c] * vt[k][c][j].re, im + at[k][r][c] * vt[k][c][j].im end
              local vr, vi = vt[k][r][j].re, vt[k][r][j].im
              re, im = re - (z.re * vr - z.im * vi), im - (z.re * vi + z.im * vr)
              assert(math.abs(re) + math.abs(im) <= tol * 10, string.format("A v - w v, matrix %d column %d", k, j))
            end
          end
        end
      end)
    end)
  end
end)

-- float16/bfloat16 products on cublasGemmEx (float32 accumulation, tensor
-- cores): the host's convert-sgemm-round within the type's tolerance (the
-- sums' order differs), transposed operands and beta included.
describe("half matmul on cublasGemmEx", function()
  for _, ct in ipairs { "float16", "bfloat16" } do
    it("matmul and gemm_ match the host (" .. ct .. ") #outermost", function()
      if not need_gpu() then return end
      local tol = require("gpumat.core")._ctypes[ct].tol
      local a = gm.mat(40 * 24, { ctype = ct, initial_contents = vals(40 * 24, 3) }):reshape(40, 24)
      local b = gm.mat(24 * 16, { ctype = ct, initial_contents = vals(24 * 16, 4) }):reshape(24, 16)
      local c0 = gm.mat(16 * 40, { ctype = ct, initial_contents = vals(16 * 40, 5) }):reshape(16, 40)
      local hp, hc = gm.matmul(a, b), c0:copy()
      hc:gemm_(0.5, b, a, 2, { transpose_a = true, transpose_b = true })
      gm.with_cuda(CUDA, function()
        local da, db, dc = a:copy(), b:copy(), c0:copy()
        gm.add(da, 0, { out = da })
        local dp = gm.matmul(da, db)
        dc:gemm_(0.5, db, da, 2, { transpose_a = true, transpose_b = true })
        assert.are.equal(ct, dp:dtype())
        for _, pair in ipairs { { dp, hp, "matmul" }, { dc, hc, "gemm_" } } do
          local g, w = pair[1]:view(-1):to_table(), pair[2]:view(-1):to_table()
          for i = 1, #w do
            assert(math.abs(g[i] - w[i]) <= 4 * tol * math.max(1, math.abs(w[i])),
              string.format("%s %s[%d]: device %.9g, host %.9g", ct, pair[3], i, g[i], w[i]))
          end
        end
      end)
    end)
  end
end)
