-- gm.linalg: the array standard's linear algebra extension (2025.12), real
-- floating and complex ctypes (complex: LAPACK's c/z routines and the
-- Hermitian forms, the conjugate transpose where the math needs it).  The factorisations go through core._linalg
-- (src/core/ops/linalg.c: one LAPACK job per matrix of a stack, on the host
-- (LAPACK), the emulated device (LAPACK behind cuSOLVER's arguments) or
-- CUDA (cuSOLVER)); this file prepares the column-major stacks those jobs
-- take and reads their results back as row-major mats.  A contiguous
-- row-major matrix read column-major is its transpose, which most jobs
-- use directly (see each function); the rest is composed from ops that run
-- wherever the mats live (views, broadcasting elementwise ops, reductions,
-- gemm).  Results follow the standard's "0-d results": one matrix gives a
-- Lua number where the standard gives a 0-d array.
local argcheck = require "gpumat.argcheck"
local argerror, raise = argcheck.argerror, argcheck.error

return function(gm, core, methods)
  local mat_mt = getmetatable(core.mat(0))
  local function is_mat(x) return getmetatable(x) == mat_mt end
  local EPS = { float = 2 ^ -23, double = 2 ^ -52, complex64 = 2 ^ -23, complex128 = 2 ^ -52 }
  local REAL_OF = { complex64 = "float", complex128 = "double" }
  local function is_complex(a) return REAL_OF[a:ctype()] ~= nil end

  -- a float or complex mat (LAPACK's s/d/c/z rows)
  local function check(fn, a, n, minrank)
    if not is_mat(a) then argerror(n, fn, "gpumat.mat expected, got %s", type(a)) end
    if not is_complex(a) then core._check_float(fn, n, a) end
    if minrank and #a:dims() < minrank then
      argerror(n, fn, "needs at least %d dimensions, has %d", minrank, #a:dims())
    end
    return a
  end

  local function same_ctype(fn, a, b, n)
    if a:ctype() ~= b:ctype() then argerror(n, fn, "mixed ctypes %s and %s", a:ctype(), b:ctype()) end
  end

  local function is_float(a)
    local t = a:ctype()
    return t == "float" or t == "double"
  end

  -- the products (matmul, tensordot, vecdot) take every real type: a
  -- mat argument of any ctype, and the operands promoted to
  -- gm.result_type (converted where they live); integer and bool
  -- products stay in their type (NumPy's: sums wrap, bool is or of ands)
  local function check_any(fn, a, n, minrank)
    if not is_mat(a) then argerror(n, fn, "gpumat.mat expected, got %s", type(a)) end
    if minrank and #a:dims() < minrank then
      argerror(n, fn, "needs at least %d dimensions, has %d", minrank, #a:dims())
    end
    return a
  end

  local function promoted(x, y)
    local t = gm.result_type(x, y)
    if x:dtype() ~= t then x = x:as(t) end
    if y:dtype() ~= t then y = y:as(t) end
    return x, y
  end

  local options = argcheck.options

  local function square(fn, a, n)
    check(fn, a, n, 2)
    local d = a:dims()
    if d[#d] ~= d[#d - 1] then argerror(n, fn, "matrices must be square, are %dx%d", d[#d - 1], d[#d]) end
    return d[#d]
  end

  -- leading (stack) dims, and the count of matrices
  local function stack_of(a)
    local d, s, c = a:dims(), {}, 1
    for i = 1, #d - 2 do s[i], c = d[i], c * d[i] end
    return s, c
  end

  local function cat(s, ...)
    local r = {}
    for i = 1, #s do r[i] = s[i] end
    for _, v in ipairs { ... } do r[#r + 1] = v end
    return r
  end

  local function opts_of(a) return { ctype = a:ctype(), cuda_enabled = a:cuda_enabled() } end
  local function zeros(dims, a) return gm.zeros(dims, opts_of(a)) end
  -- a's real type (singular values, eigenvalues, pivots, ordered indices)
  local function real_opts(a) return { ctype = REAL_OF[a:ctype()] or a:ctype(), cuda_enabled = a:cuda_enabled() } end
  local function real_zeros(dims, a) return gm.zeros(dims, real_opts(a)) end
  -- the conjugate of a complex mat (the identity on real ones, no copy)
  local function conj(a) return is_complex(a) and gm.conj(a) or a end

  -- the last two axes swapped, as a view
  local function mT(a)
    local r, p = #a:dims(), {}
    for i = 1, r do p[i] = i end
    p[r - 1], p[r] = r, r - 1
    return a:permute(p)
  end

  -- a contiguous copy that shares nothing with m (the jobs write it)
  local function fresh(m)
    local c = m:contiguous()
    if c == m then c = m:copy() end
    return c
  end

  local function run(fn, kind, m, n, nrhs, qcols, trans, vectors, full, a, b, w, u, vt, upper, left, unit)
    local failed, info = core._linalg(kind, m, n, nrhs, qcols, trans, vectors, full, a, b, w, u, vt, upper, left,
      unit)
    if info < 0 then
      raise("%s: LAPACK rejected matrix %d of the stack (info %d: NaN or infinity in the input?)", fn, failed, info)
    end
    return failed, info
  end

  -- the lower (upper) triangle of the last two axes, the rest zero;
  -- k shifts the diagonal as in NumPy's tril/triu
  local function tri(a, upper, k)
    local d = a:dims()
    local r, c = d[#d - 1], d[#d]
    local o = real_opts(a)
    if r == 0 or c == 0 then return fresh(a) end
    local rows, cols = gm.range(1, r, 1, o):view(r, 1), gm.range(1, c, 1, o):view(1, c)
    local mask = upper and gm.ge(cols, rows + (k or 0)) or gm.le(cols, rows + (k or 0))
    return gm.where(mask, a, 0)
  end

  -- the batched matrix product of two stacks with the same stack dims:
  -- one gemm job per stack (C's raw is C^T = Y^T X^T column-major, so
  -- the raws of y and x go in as they are)
  local bmm
  function bmm(x, y)
    local dx, dy = x:dims(), y:dims()
    local p, q, r = dx[#dx - 1], dx[#dx], dy[#dy]
    local s, count = stack_of(x)
    if count == 0 or p == 0 or r == 0 or q == 0 then return zeros(cat(s, p, r), x) end
    local half = x:dtype() == "float16" or x:dtype() == "bfloat16"
    -- the 16-bit floats: sgemm on float32 copies (exact), accumulating in
    -- float32, the product rounded once (docs/API.md "Half mats")
    if half then return bmm(x:as("float32"), y:as("float32")):as(x:dtype()) end
    -- every element is written (beta 0): no fill
    local c = gm.mat(cat(s, p, r), { ctype = x:ctype(), cuda_enabled = x:cuda_enabled(), initial_element = false })
    local x3, y3 = x:contiguous(), y:contiguous()
    if y3 == x3 then y3 = x3:copy() end -- the job's operands never share storage
    if not is_float(x) and not x:dtype():match("^complex") then -- no BLAS: kernels/imatmul.h's loops
      core._int_matmul(x3:view(count, p, q), y3:view(count, q, r), c:view(count, p, r))
      return c
    end
    run("matmul", "gemm", r, p, q, 0, false, false, false, y3, x3, nil, c)
    return c
  end

  local L = {}

  -- broadcast stack dims of a and b (NumPy's rule), or an error
  local function broadcast_stacks(fn, sa, sb)
    local r, n = {}, math.max(#sa, #sb)
    for i = 1, n do
      local x, y = sa[#sa - n + i] or 1, sb[#sb - n + i] or 1
      if x ~= y and x ~= 1 and y ~= 1 then
        raise("%s: cannot broadcast stacks %s and %s", fn, table.concat(sa, "x"), table.concat(sb, "x"))
      end
      r[i] = x == 1 and y or x
    end
    return r
  end

  -- solve: a raw is A^T column-major, so getrs solves with trans; b goes
  -- in column-major (transposed), and comes back through the transpose.
  function L.solve(a, b)
    local fn = "solve"
    local n = square(fn, a, 1)
    check(fn, b, 2, 1)
    same_ctype(fn, a, b, 2)
    local db, vector = b:dims(), #b:dims() == 1
    if db[vector and 1 or #db - 1] ~= n then
      argerror(2, fn, "b has %d rows, a is %dx%d", db[vector and 1 or #db - 1], n, n)
    end
    local k = vector and 1 or db[#db]
    local s = broadcast_stacks(fn, (stack_of(a)), vector and {} or (stack_of(b)))
    local ac = fresh(a:expand(cat(s, n, n)))
    local bc = vector and fresh(b:view(1, n):expand(cat(s, 1, n))) or fresh(mT(b:expand(cat(s, n, k))))
    local failed, info = run(fn, "gesv", n, n, k, 0, true, false, false, ac, bc)
    if info > 0 then raise("%s: matrix %d of the stack is singular (U(%d,%d) is zero)", fn, failed, info, info) end
    if vector then return bc:view(cat(s, n)) end
    if k == 1 then return bc:view(cat(s, n, 1)) end -- one column: the transpose is a reshape
    return fresh(mT(bc))
  end

  -- inv: solves A^T X = I on a's raw (A^T column-major): X = inv(A)^T,
  -- whose column-major reading is inv(A) row-major.
  function L.inv(a)
    local fn = "inv"
    local n = square(fn, a, 1)
    local s = stack_of(a)
    local ac = fresh(a)
    local x = fresh(gm.eye(n, opts_of(a)):expand(cat(s, n, n)))
    local failed, info = run(fn, "gesv", n, n, n, 0, false, false, false, ac, x)
    if info > 0 then raise("%s: matrix %d of the stack is singular (U(%d,%d) is zero)", fn, failed, info, info) end
    return x
  end

  -- slogdet/det: gm.logdet (LU on the place where a lives) per matrix
  -- gm.logdet of one matrix; one holding a NaN or an infinity (which
  -- LAPACK's and gpumat's getrf refuse) has a NaN determinant, as NumPy's
  local function logdet(m)
    local ok, v, sign = pcall(gm.logdet, m)
    if ok then return v, sign end
    if tostring(v):find("contains NaN or infinity", 1, true) then return 0 / 0, 0 / 0 end
    error(v, 0)
  end

  local cx_slogdet -- complex matrices: from getrf's factors (below)

  local function slogdet_all(fn, a)
    local n = square(fn, a, 1)
    local s, count = stack_of(a)
    if #s == 0 then
      local v, sign = logdet(a)
      return nil, sign, v
    end
    local signs, logs = {}, {}
    local a3 = count > 0 and a:contiguous():view(count, n, n)
    for i = 1, count do
      local v, sign = logdet(a3:select(1, i))
      signs[i], logs[i] = sign, v
    end
    return s, signs, logs
  end

  local function stack_mat(s, values, a)
    local o = opts_of(a)
    if #values == 0 then return gm.zeros(s, o) end
    o.initial_contents = values
    return gm.mat(#values, o):view(s)
  end

  function L.slogdet(a)
    if is_mat(a) and is_complex(a) then return cx_slogdet("slogdet", a) end
    local s, sign, v = slogdet_all("slogdet", a)
    if not s then return sign, v end
    return stack_mat(s, sign, a), stack_mat(s, v, a)
  end

  function L.det(a)
    if is_mat(a) and is_complex(a) then
      local sign, v = cx_slogdet("det", a)
      if #a:dims() == 2 then return sign * math.exp(v) end
      return gm.cmul(sign, gm.exp(v))
    end
    local s, sign, v = slogdet_all("det", a)
    if not s then return sign * math.exp(v) end
    local d = {}
    for i = 1, #sign do d[i] = sign[i] * math.exp(v[i]) end
    return stack_mat(s, d, a)
  end

  -- cholesky: potrf on the upper triangle of a's raw (A^T column-major:
  -- a's lower triangle, which NumPy reads) gives U with A = U^T U, whose
  -- row-major reading is L = U^T.  Complex: a's raw is A^T = conj(A) =
  -- U^H U, so A = U^T conj(U) and L = U^T again; upper is L^H.
  function L.cholesky(a, opts)
    local fn = "cholesky"
    local n = square(fn, a, 1)
    opts = options(fn, opts, 2, { upper = true })
    local ac = fresh(a)
    local failed, info = run(fn, "potrf", n, n, 0, 0, false, false, false, ac)
    if info > 0 then
      raise("%s: matrix %d of the stack is not positive definite (leading minor %d)", fn, failed, info)
    end
    if opts.upper then return tri(conj(fresh(mT(ac))), true) end
    return tri(ac, false)
  end

  -- qr: geqrf/orgqr on A column-major (a's transpose, copied)
  function L.qr(a, opts)
    local fn = "qr"
    check(fn, a, 1, 2)
    opts = options(fn, opts, 2, { mode = true })
    local mode = opts.mode or "reduced"
    if mode ~= "reduced" and mode ~= "complete" then
      argerror(2, fn, "mode must be 'reduced' or 'complete', got %s", tostring(mode))
    end
    local d, s = a:dims(), stack_of(a)
    local m, n = d[#d - 1], d[#d]
    local k = math.min(m, n)
    local qc = mode == "reduced" and k or m
    local ac, q = fresh(mT(a)), zeros(cat(s, qc, m), a)
    if m > 0 and n == 0 and qc > 0 then -- no reflectors: Q is the identity
      q = fresh(gm.eye(qc, m, opts_of(a)):expand(cat(s, qc, m)))
    end
    run(fn, "qr", m, n, 0, qc, false, false, false, ac, q)
    local r = mT(ac:view(cat(s, n, m)))
    if qc < m then r = r:narrow(#d - 1, 1, qc) end
    return fresh(mT(q)), tri(fresh(r), true)
  end

  -- eigh: syevd on a's raw (A^T = A; its upper triangle is a's lower, as
  -- NumPy's UPLO='L'); the eigenvectors come back column-major.  Complex
  -- (heevd): the raw is A^T = conj(A), whose eigenvectors are conj(V);
  -- the eigenvalues are real.
  local function eigh(fn, a, vectors)
    local n = square(fn, a, 1)
    local s = stack_of(a)
    local ac, w = fresh(a), real_zeros(cat(s, n), a)
    local failed, info = run(fn, "syevd", n, n, 0, 0, false, vectors, false, ac, nil, w)
    if info > 0 then raise("%s: matrix %d of the stack: no convergence (info %d)", fn, failed, info) end
    if vectors then return w, conj(fresh(mT(ac))) end
    return w
  end

  function L.eigh(a) return eigh("eigh", a, true) end
  function L.eigvalsh(a) return eigh("eigvalsh", a, false) end

  -- svd: gesvd needs rows >= columns.  m >= n: A column-major (a's
  -- transpose, copied), results transposed back.  m < n: a's raw is A^T
  -- (n x m) = U' S V'^T, so u = V' (the raw of vt, read row-major) and
  -- vh = U'^T (the raw of u): no transposes.  Complex: the same holds with
  -- conjugate transposes (A^T = U' S V'^H gives u = conj(V'), the raw of
  -- vt = V'^H read row-major); the singular values are real.
  local function svd(fn, a, vectors, full)
    check(fn, a, 1, 2)
    local d, s = a:dims(), stack_of(a)
    local m, n = d[#d - 1], d[#d]
    local tall = m >= n
    local M, N = math.max(m, n), math.min(m, n)
    local uc = full and M or N
    local ac = tall and fresh(mT(a)) or fresh(a)
    local w = real_zeros(cat(s, N), a)
    local u = vectors and zeros(cat(s, uc, M), a) or nil
    if vectors and N == 0 and uc > 0 then -- no job runs: U is any orthogonal matrix
      u = fresh(gm.eye(uc, M, opts_of(a)):expand(cat(s, uc, M)))
    end
    local vt = vectors and zeros(cat(s, N, N), a) or nil
    local failed, info = 0, 0
    if N > 0 then failed, info = run(fn, "gesvd", M, N, 0, 0, false, vectors, full, ac, nil, w, u, vt) end
    if info > 0 then raise("%s: matrix %d of the stack: no convergence (info %d)", fn, failed, info) end
    if not vectors then return w end
    if tall then return fresh(mT(u)), w, fresh(mT(vt)) end
    return vt, w, u
  end

  function L.svd(a, opts)
    opts = options("svd", opts, 2, { full_matrices = true })
    local full = opts.full_matrices
    if full == nil then full = true end
    return svd("svd", a, true, full and true or false)
  end

  function L.svdvals(a) return svd("svdvals", a, false, false) end

  local function rtol_of(fn, a, opts, n)
    opts = options(fn, opts, n, { rtol = true })
    local d = a:dims()
    if opts.rtol ~= nil and type(opts.rtol) ~= "number" then argerror(n, fn, "rtol must be a number") end
    return opts.rtol or math.max(d[#d - 1], d[#d]) * EPS[a:ctype()]
  end

  -- the singular values above rtol * the largest, per matrix (a bool
  -- mat), and the singular values
  local function kept(s, rtol)
    local k = s:dims()[#s:dims()]
    if k == 0 then return s, s end
    local cutoff = s:max(-1, { keepdims = true }) * rtol
    return gm.gt(s, cutoff), s
  end

  function L.matrix_rank(a, opts)
    local fn = "matrix_rank"
    check(fn, a, 1, 2)
    local rtol = rtol_of(fn, a, opts, 2)
    local s = L.svdvals(a)
    local mask = kept(s, rtol):as(s:dtype()) -- counted in floats (exact below 2^24)
    if #a:dims() == 2 then return math.tointeger(mask:sum()) or mask:sum() end
    if mask:dims()[#mask:dims()] == 0 then return zeros((stack_of(a)), a):as("int64") end
    return mask:sum(-1):as("int64")
  end

  -- pinv = V diag(1/s, kept) U^H from the reduced SVD
  function L.pinv(a, opts)
    local fn = "pinv"
    check(fn, a, 1, 2)
    local rtol = rtol_of(fn, a, opts, 2)
    local u, s, vh = L.svd(a, { full_matrices = false })
    local d, st = a:dims(), stack_of(a)
    local k = s:dims()[#s:dims()]
    if k == 0 then return zeros(cat(st, d[#d], d[#d - 1]), a) end
    local mask = kept(s, rtol)
    local sinv = gm.where(mask, gm.cdiv(1, gm.where(mask, s, 1)), 0)
    return bmm(gm.cmul(conj(mT(vh)), sinv:view(cat(st, 1, k))), conj(mT(u)))
  end

  -- lstsq (NumPy's): x minimizing |a x - b|, residuals, rank, s; one
  -- matrix a (m x n), b of m rows (a vector or m x k)
  function L.lstsq(a, b, opts)
    local fn = "lstsq"
    check(fn, a, 1, 2)
    check(fn, b, 2, 1)
    same_ctype(fn, a, b, 2)
    if #a:dims() ~= 2 or #b:dims() > 2 then raise("%s: a must be 2-dimensional and b 1- or 2-dimensional", fn) end
    opts = options(fn, opts, 3, { rcond = true })
    local m, n = a:dims()[1], a:dims()[2]
    if b:dims()[1] ~= m then argerror(2, fn, "b has %d rows, a has %d", b:dims()[1], m) end
    local rcond = opts.rcond or math.max(m, n) * EPS[a:ctype()]
    local s = L.svdvals(a)
    local rank = #s:dims() > 0 and s:size() > 0 and math.tointeger((kept(s, rcond)):as(s:dtype()):sum()) or 0
    local p = L.pinv(a, { rtol = rcond })
    local vector = #b:dims() == 1
    local b2 = vector and b:view(m, 1) or b
    local x = bmm(p, b2:contiguous())
    local k = b2:dims()[2]
    local res = zeros({ 0 }, a)
    if rank == n and m > n then
      local r = bmm(a:contiguous(), x) - b2
      res = gm.square(is_complex(r) and gm.abs(r) or r):sum(1)
      if vector then res = res:view(1) end
    end
    if vector then x = x:view(n) end
    return x, res, rank, s
  end

  -- the 1-based index in a's stack of the first matrix with a zero on its
  -- diagonal, and that position, or nil
  local function zero_diagonal(a, n)
    local z = gm.eq(L.diagonal(a), 0)
    if z:as("int32"):sum() == 0 then return nil end
    local rows = z:contiguous():view(-1, n):to_table()
    for i, row in ipairs(rows) do
      for j = 1, n do
        if row[j] ~= 0 and row[j] ~= false then return i, j end
      end
    end
  end

  -- solve_triangular: one trsm per matrix, no copies of a.  a's raw is
  -- A^T column-major and b's raw B^T (k x n), so op(A) X = B is
  -- X^T A^T = B^T: trsm from the other side on the other triangle, and
  -- the solution's raw is X row-major.
  function L.solve_triangular(a, b, opts)
    local fn = "solve_triangular"
    local n = square(fn, a, 1)
    check(fn, b, 2, 1)
    same_ctype(fn, a, b, 2)
    opts = options(fn, opts, 3, { upper = true, left = true, unit_diagonal = true })
    local left = opts.left == nil or opts.left and true or false
    local db, vector = b:dims(), #b:dims() == 1
    if vector and not left then argerror(2, fn, "b must be a matrix when left is false") end
    local bn = vector and db[1] or db[left and #db - 1 or #db]
    if bn ~= n then
      argerror(2, fn, "b has %d %s, a is %dx%d", bn, left and "rows" or "columns", n, n)
    end
    if not opts.unit_diagonal then
      local at, pos = zero_diagonal(a, n)
      if at then raise("%s: matrix %d of the stack is singular (zero on the diagonal at %d)", fn, at, pos) end
    end
    local s = broadcast_stacks(fn, (stack_of(a)), vector and {} or (stack_of(b)))
    local ac = a:expand(cat(s, n, n)):contiguous()
    local bc = vector and fresh(b:view(1, n):expand(cat(s, 1, n))) or fresh(b:expand(cat(s, db[#db - 1], db[#db])))
    local k = vector and 1 or db[left and #db or #db - 1]
    run(fn, "trsm", n, n, k, 0, false, false, false, ac, bc, nil, nil, nil,
      not opts.upper, not left, opts.unit_diagonal and true or false)
    if vector then return bc:view(cat(s, n)) end
    return bc
  end

  -- getrf on A column-major (a's transpose, copied): the LU factors
  -- (row-major, m x n) and the pivots (1-based, a's ctype)
  local function getrf(fn, a)
    check(fn, a, 1, 2)
    local d, s = a:dims(), stack_of(a)
    local m, n = d[#d - 1], d[#d]
    local ac, piv = fresh(mT(a)), real_zeros(cat(s, math.min(m, n)), a)
    run(fn, "getrf", m, n, 0, 0, false, false, false, ac, nil, piv)
    return fresh(mT(ac:view(cat(s, n, m)))), piv, s, m, n
  end

  -- slogdet of complex matrices from getrf's factors (one job for the
  -- stack): sign = prod(u_ii / |u_ii|) * (-1)^swaps (0 when singular, as
  -- gm.sign(0) is), log|det| = sum log |u_ii| (-inf when singular)
  function cx_slogdet(fn, a)
    square(fn, a, 1)
    local lu, piv, s, _, n = getrf(fn, a)
    local ro = real_opts(a)
    local d = L.diagonal(lu)
    local flips = n > 0 and gm.ne(piv, gm.range(1, n, 1, ro)):as(ro.ctype) * -2 + 1 or piv
    local logs = gm.log(gm.abs(d))
    if #s == 0 then return gm.sign(d):prod() * flips:prod(), logs:sum() end
    return gm.cmul(gm.sign(d):prod(-1), flips:prod(-1)), logs:sum(-1)
  end

  -- the pivots are an int64 mat, as the contract gives every index
  function L.lu_factor(a)
    local lu, piv = getrf("lu_factor", a)
    return lu, piv:as("int64")
  end

  -- lu: P from the pivots (row i swapped with row piv[i], in order:
  -- P^T A = L U), L unit lower m x k and U upper k x n from the factors
  function L.lu(a)
    local lu, piv, s, m, n = getrf("lu", a)
    local k = math.min(m, n)
    local count = 1
    for i = 1, #s do count = count * s[i] end
    local flat = {}
    local pv = k > 0 and count > 0 and piv:contiguous():view(count * k):to_table() or {}
    for c = 0, count - 1 do
      local perm = {}
      for i = 1, m do perm[i] = i end
      for i = 1, k do
        local j = math.tointeger(pv[c * k + i])
        perm[i], perm[j] = perm[j], perm[i]
      end
      local base = c * m * m
      for i = 1, m * m do flat[base + i] = 0 end
      for r = 1, m do flat[base + (perm[r] - 1) * m + r] = 1 end
    end
    local p = stack_mat({ count * m * m }, flat, a):view(cat(s, m, m))
    local l, u = tri(lu:narrow(#s + 2, 1, k), false, -1), tri(lu:narrow(#s + 1, 1, k), true)
    if k > 0 then l = l + gm.eye(m, k, opts_of(a)) end
    return p, fresh(l), fresh(u)
  end

  -- lu_solve: getrs on the factors column-major (copied back from
  -- lu_factor's row-major) and b column-major
  function L.lu_solve(lu, pivots, b)
    local fn = "lu_solve"
    local n = square(fn, lu, 1)
    if not is_mat(pivots) or (pivots:ctype() ~= lu:ctype() and not gm.isdtype(pivots:dtype(), "integral")) then
      argerror(2, fn, "an integer mat of pivots expected (lu_factor's), got %s",
        is_mat(pivots) and (pivots:dtype() .. " mat") or type(pivots))
    end
    check(fn, b, 3, 2)
    -- getrs takes the pivots in the factors' ctype (whole numbers, checked there)
    local pt = REAL_OF[lu:ctype()] or lu:ctype()
    if pivots:ctype() ~= pt then pivots = pivots:as(pt) end
    check(fn, pivots, 2, 1)
    same_ctype(fn, lu, b, 3)
    local dp, db = pivots:dims(), b:dims()
    if dp[#dp] ~= n then argerror(2, fn, "pivots has %d elements per matrix, lu is %dx%d", dp[#dp], n, n) end
    if db[#db - 1] ~= n then argerror(3, fn, "b has %d rows, lu is %dx%d", db[#db - 1], n, n) end
    local sp = {}
    for i = 1, #dp - 1 do sp[i] = dp[i] end
    local s = broadcast_stacks(fn, broadcast_stacks(fn, (stack_of(lu)), sp), (stack_of(b)))
    local k = db[#db]
    local lc = fresh(mT(lu:expand(cat(s, n, n))))
    local pc = pivots:expand(cat(s, n)):contiguous()
    local bc = fresh(mT(b:expand(cat(s, n, k))))
    run(fn, "getrs", n, n, k, 0, false, false, false, lc, bc, pc)
    return fresh(mT(bc))
  end

  function L.matrix_power(a, k)
    local fn = "matrix_power"
    local n = square(fn, a, 1)
    if math.type(k) ~= "integer" then argerror(2, fn, "integer expected, got %s", math.type(k) or type(k)) end
    local s = stack_of(a)
    if k == 0 then return fresh(gm.eye(n, opts_of(a)):expand(cat(s, n, n))) end
    local base = k < 0 and L.inv(a) or fresh(a)
    k = math.abs(k)
    local result
    while k > 0 do
      if k % 2 == 1 then result = result and bmm(result, base) or fresh(base) end
      k = k // 2
      if k > 0 then base = bmm(base, base) end
    end
    return result
  end

  local function offset_of(fn, opts, n)
    opts = options(fn, opts, n, { offset = true })
    local k = opts.offset or 0
    if math.type(k) ~= "integer" then argerror(n, fn, "offset must be an integer") end
    return k
  end

  -- diagonal: every (n + 1)-th element of each flattened matrix, from the
  -- offset's first element (a strided subscript of a contiguous copy)
  function L.diagonal(a, opts)
    local fn = "diagonal"
    check(fn, a, 1, 2)
    local k = offset_of(fn, opts, 2)
    local d, s = a:dims(), stack_of(a)
    local r, c = d[#d - 1], d[#d]
    local len = k >= 0 and math.min(r, c - k) or math.min(r + k, c)
    if len <= 0 then return zeros(cat(s, 0), a) end
    local first = k >= 0 and k + 1 or -k * c + 1
    local flat = a:contiguous():view(cat(s, r * c))
    local sub = {}
    for i = 1, #s do sub[i] = {} end
    sub[#s + 1] = { first, first + (len - 1) * (c + 1), c + 1 }
    return fresh(flat[sub])
  end

  function L.trace(a, opts)
    opts = options("trace", opts, 2, { offset = true, dtype = true })
    if opts.dtype ~= nil then
      local ct = ({ float32 = "float", float64 = "double" })[opts.dtype] or opts.dtype
      if not EPS[ct] then argerror(2, "trace", "dtype must be a floating ctype, got %s", tostring(opts.dtype)) end
      check("trace", a, 1, 2)
      a = a:as(ct)
    end
    local dg = L.diagonal(a, { offset = opts.offset })
    if #a:dims() == 2 then return dg:sum() end
    return dg:sum(-1)
  end

  function L.matrix_transpose(a)
    check("matrix_transpose", a, 1, 2)
    return fresh(mT(a))
  end

  function L.outer(x, y)
    local fn = "outer"
    check(fn, x, 1)
    check(fn, y, 2)
    same_ctype(fn, x, y, 2)
    if #x:dims() ~= 1 or #y:dims() ~= 1 then raise("%s: x1 and x2 must be 1-dimensional", fn) end
    return gm.cmul(x:view(x:size(), 1), y:view(1, y:size()))
  end

  local axis_of = argcheck.axis

  function L.vecdot(x, y, opts)
    local fn = "vecdot"
    check_any(fn, x, 1)
    check_any(fn, y, 2)
    x, y = promoted(x, y)
    opts = options(fn, opts, 3, { axis = true })
    -- lengths checked before the product is allocated
    local rank = math.max(#x:dims(), #y:dims())
    local ax = axis_of(fn, opts.axis or -1, rank, 3)
    local ax1 = axis_of(fn, opts.axis or -1, #x:dims(), 3)
    local ax2 = axis_of(fn, opts.axis or -1, #y:dims(), 3)
    if x:dims()[ax1] ~= y:dims()[ax2] then
      raise("%s: the vectors have %d and %d elements", fn, x:dims()[ax1], y:dims()[ax2])
    end
    -- complex: the standard's sum(conj(x1) * x2)
    local complex = x:dtype():match("^complex")
    local p = gm.cmul(complex and gm.conj(x) or x, y)
    if is_float(p) or complex then
      if rank == 1 then return p:sum() end
      return p:sum(ax)
    end
    -- integers keep their type (the sum wraps in it), bool is any (NumPy's)
    if rank == 1 then p, ax = p:view(1, p:size()), 2 end
    local r = p:dtype() == "bool" and p:any(ax) or p:sum(ax):as(p:dtype()) -- int64 sums wrapped into the type
    if rank == 1 then return r[1] end
    return r
  end

  function L.cross(x, y, opts)
    local fn = "cross"
    check(fn, x, 1)
    check(fn, y, 2)
    same_ctype(fn, x, y, 2)
    opts = options(fn, opts, 3, { axis = true })
    local ax = opts.axis or -1
    if math.type(ax) ~= "integer" or ax >= 0 then argerror(3, fn, "axis must be a negative integer") end
    local rx, ry = #x:dims(), #y:dims()
    if -ax > math.min(rx, ry) then argerror(3, fn, "axis %d is out of range", ax) end
    local ix, iy = rx + 1 + ax, ry + 1 + ax
    if x:dims()[ix] ~= 3 or y:dims()[iy] ~= 3 then raise("%s: the vectors must have 3 elements", fn) end
    local function c(m, i, axis) return m:narrow(axis, i, 1) end
    local parts = {}
    for i = 1, 3 do
      local j, k = i % 3 + 1, (i + 1) % 3 + 1
      parts[i] = gm.cmul(c(x, j, ix), c(y, k, iy)) - gm.cmul(c(x, k, ix), c(y, j, iy))
    end
    local d = parts[1]:dims()
    local axis = #d + 1 + ax
    d[axis] = 3
    local out = zeros(d, x)
    for i = 1, 3 do gm.add(parts[i], 0, { out = out:narrow(axis, i, 1) }) end
    return out
  end

  -- the reduction of x along the last axis for ord
  local function norm_last(x, ord)
    if is_complex(x) then x = gm.abs(x) end -- every norm of |x|, real
    if ord == 2 then return gm.sqrt(gm.square(x):sum(-1)) end
    local ax = gm.abs(x)
    if ord == math.huge then return ax:max(-1) end
    if ord == -math.huge then return ax:min(-1) end
    if ord == 1 then return ax:sum(-1) end
    if ord == 0 then return gm.ne(x, 0):as(x:dtype()):sum(-1) end
    return gm.pow(gm.pow(ax, ord):sum(-1), 1 / ord)
  end

  -- vector_norm: the axes moved last and merged, reduced with norm_last
  function L.vector_norm(x, opts)
    local fn = "vector_norm"
    -- elementwise ops and reductions only: the half types too (computed in
    -- float32, as NumPy's norm of float16); the LAPACK-backed functions
    -- refuse them, as NumPy's linalg does
    if not (is_mat(x) and (x:dtype() == "float16" or x:dtype() == "bfloat16")) then check(fn, x, 1) end
    opts = options(fn, opts, 2, { axis = true, keepdims = true, ord = true })
    local ord = opts.ord or 2
    if type(ord) ~= "number" then argerror(2, fn, "ord must be a number") end
    local d, rank = x:dims(), #x:dims()
    local axes = opts.axis
    if axes == nil then
      axes = {}
      for i = 1, rank do axes[i] = i end
    elseif type(axes) ~= "table" then
      axes = { axes }
    end
    local red, keep, perm, kd, n = {}, {}, {}, {}, 1
    for _, a in ipairs(axes) do
      local ax = axis_of(fn, a, rank, 2)
      if red[ax] then argerror(2, fn, "axis %d repeated", ax) end
      red[ax] = true
    end
    for i = 1, rank do
      if not red[i] then perm[#perm + 1], keep[#keep + 1] = i, d[i] end
      kd[i] = red[i] and 1 or d[i]
    end
    for i = 1, rank do
      if red[i] then perm[#perm + 1], n = i, n * d[i] end
    end
    -- (read only: a contiguous x in its own order is viewed, not copied)
    local flat = rank == 0 and x or x:permute(perm):contiguous():view(cat(keep, n))
    local dt = x:dtype()
    if ord == 2 and #keep == 0 and rank > 0 and (dt == "float32" or dt == "float64") then
      -- the whole of a real x: sqrt(x . x), NumPy's norm, one BLAS dot with
      -- no squared copy (1M floats: 79 us against 476), rounded to x's type
      local r = math.sqrt(gm.dot(flat, flat))
      return dt == "float32" and string.unpack("<f", string.pack("<f", r)) or r
    end
    local r = norm_last(flat, ord)
    if opts.keepdims then return r:view(kd) end
    if #keep == 0 then return r:view(1)[1] end
    return r
  end

  function L.matrix_norm(x, opts)
    local fn = "matrix_norm"
    check(fn, x, 1, 2)
    opts = options(fn, opts, 2, { keepdims = true, ord = true })
    local ord = opts.ord or "fro"
    local d, s = x:dims(), stack_of(x)
    local r
    if ord == "fro" then
      local flat = x:contiguous():view(cat(s, d[#d - 1] * d[#d]))
      r = gm.sqrt(gm.square(is_complex(flat) and gm.abs(flat) or flat):sum(-1))
    elseif ord == "nuc" or ord == 2 or ord == -2 then
      local sv = L.svdvals(x)
      r = ord == "nuc" and sv:sum(-1) or ord == 2 and sv:max(-1) or sv:min(-1)
    elseif ord == 1 or ord == -1 then
      local cs = gm.abs(x):sum(-2)
      r = ord == 1 and cs:max(-1) or cs:min(-1)
    elseif ord == math.huge or ord == -math.huge then
      local rs = gm.abs(x):sum(-1)
      r = ord > 0 and rs:max(-1) or rs:min(-1)
    else
      argerror(2, fn, "ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got %s", tostring(ord))
    end
    if opts.keepdims then return r:view(cat(s, 1, 1)) end
    if #s == 0 then return r:view(1)[1] end
    return r
  end

  -- tensordot: the contracted axes of x moved last, y's first, one gemm
  function L.tensordot(x, y, opts)
    local fn = "tensordot"
    check_any(fn, x, 1)
    check_any(fn, y, 2)
    x, y = promoted(x, y)
    opts = options(fn, opts, 3, { axes = true })
    local dx, dy = x:dims(), y:dims()
    local axes, ax, ay = opts.axes or 2, {}, {}
    if math.type(axes) == "integer" then
      if axes < 0 or axes > #dx or axes > #dy then argerror(3, fn, "axes %d is out of range", axes) end
      for i = 1, axes do ax[i], ay[i] = #dx - axes + i, i end
    elseif type(axes) == "table" and type(axes[1]) == "table" and type(axes[2]) == "table" and #axes[1] == #axes[2] then
      for i = 1, #axes[1] do
        ax[i], ay[i] = axis_of(fn, axes[1][i], #dx, 3), axis_of(fn, axes[2][i], #dy, 3)
      end
    else
      argerror(3, fn, "axes must be an integer or two lists of axes of the same length")
    end
    local function split(d, contracted, last)
      local c, free, perm, k, f = {}, {}, {}, 1, 1
      for _, a in ipairs(contracted) do c[a] = true end
      for i = 1, #d do
        if not c[i] then free[#free + 1], f = d[i], f * d[i] end
      end
      for i = 1, #d do
        if not c[i] then perm[#perm + 1] = i end
      end
      local ins = last and #perm + 1 or 1
      for j, a in ipairs(contracted) do table.insert(perm, ins + j - 1, a); k = k * d[a] end
      return perm, free, f, k
    end
    local px, fx, nx, kx = split(dx, ax, true)
    local py, fy, ny = split(dy, ay, false)
    for i = 1, #ax do
      if dx[ax[i]] ~= dy[ay[i]] then
        raise("%s: contracted axes %d of x1 and %d of x2 differ (%d vs %d)", fn, ax[i], ay[i], dx[ax[i]], dy[ay[i]])
      end
    end
    local a2 = #dx == 0 and x or fresh(x:permute(px)):view(nx, kx)
    local b2 = #dy == 0 and y or fresh(y:permute(py)):view(kx, ny)
    local r = bmm(a2, b2)
    local rd = cat(fx, table.unpack(fy))
    if #rd == 0 then return r:view(1)[1] end
    return r:view(rd)
  end

  -- matmul: the batched matrix product with broadcast stacks (1-d
  -- operands promoted as the standard says)
  local matmul2d = core._matmul2d
  function L.matmul(x, y)
    local fn = "matmul"
    -- two float or double matrices of one type: the C operator's product
    -- (one gemm), without the stacks' views below (gm.matmul of 64 x 64
    -- floats took 38 us, `*` 15, numpy's @ 13); the test is C's
    local r = matmul2d(x, y)
    if r then return r end
    check_any(fn, x, 1, 1)
    check_any(fn, y, 2, 1)
    x, y = promoted(x, y)
    local vx, vy = #x:dims() == 1, #y:dims() == 1
    local x2 = vx and x:view(1, x:size()) or x
    local y2 = vy and y:view(y:size(), 1) or y
    local dx, dy = x2:dims(), y2:dims()
    if dx[#dx] ~= dy[#dy - 1] then raise("%s: inner dimensions differ: %d vs %d", fn, dx[#dx], dy[#dy - 1]) end
    local s = broadcast_stacks(fn, (stack_of(x2)), (stack_of(y2)))
    local r = bmm(x2:expand(cat(s, dx[#dx - 1], dx[#dx])), y2:expand(cat(s, dy[#dy - 1], dy[#dy])))
    local rd = r:dims()
    if vx then table.remove(rd, #rd - 1) end
    if vy then table.remove(rd, #rd) end
    if #rd == 0 then return r:view(1)[1] end
    return r:view(rd)
  end

  -- eig/eigvals: geev on A column-major (a's transpose, copied).  w holds
  -- the real parts, then the imaginary ones (cuSOLVER Xgeev's real
  -- layout); vr the unit right eigenvectors in LAPACK's packed real form:
  -- for a conjugate pair (j, j+1), positive imaginary part first, the
  -- vectors are columns j + i*(j+1) and j - i*(j+1).  The standard's
  -- results are complex always (float32 gives complex64); complex
  -- matrices go to cgeev/zgeev, whose results need no unpacking.
  local COMPLEX_OF = { float = "complex64", double = "complex128" }
  local I = gm.complex(0, 1)
  local function complex_of(re, im, ct) return re:as(ct) + im:as(ct) * I end

  -- the packed vectors unpacked: column j's real part is its own column,
  -- or the previous one's for the second of a pair; its imaginary part the
  -- next column (first of a pair), minus its own (second), else 0
  local function unpack_vectors(v, wi, s, n, ct)
    local ax = #s + 2
    local z = zeros(cat(s, n, 1), v)
    local nxt = gm.concat({ v:narrow(ax, 2, n - 1), z }, { axis = ax })
    local prev = gm.concat({ z, v:narrow(ax, 1, n - 1) }, { axis = ax })
    local first, second = gm.gt(wi, 0):view(cat(s, 1, n)), gm.lt(wi, 0):view(cat(s, 1, n))
    local re = gm.where(second, prev, v)
    local im = gm.where(first, nxt, gm.where(second, -v, 0))
    return complex_of(re, im, ct)
  end

  local function eig(fn, a, vectors)
    local cin = is_mat(a) and (a:dtype() == "complex64" or a:dtype() == "complex128")
    local n = cin and a:dims()[#a:dims()] or square(fn, a, 1)
    if cin and #a:dims() < 2 then argerror(1, fn, "needs at least 2 dimensions, has %d", #a:dims()) end
    if cin and a:dims()[#a:dims() - 1] ~= n then
      argerror(1, fn, "matrices must be square, are %dx%d", a:dims()[#a:dims() - 1], n)
    end
    local s = stack_of(a)
    local ct = cin and a:dtype() or COMPLEX_OF[a:ctype()]
    -- LAPACKE scans for these on the host; cuSOLVER would return garbage
    if not gm.all(gm.isfinite(a)) then raise("%s: the matrix contains NaN or infinity", fn) end
    local ac, w = fresh(mT(a)), zeros(cat(s, cin and n or 2 * n), a)
    local vr = vectors and zeros(cat(s, n, n), a) or nil
    local failed, info = run(fn, "geev", n, n, 0, 0, false, vectors, false, ac, nil, w, vr)
    if info > 0 then raise("%s: matrix %d of the stack: no convergence (info %d)", fn, failed, info) end
    if cin then -- cgeev/zgeev: complex w and vectors as they are
      if vectors then return w, fresh(mT(vr)) end
      return w
    end
    local ax = #s + 1
    local wr, wi = w:narrow(ax, 1, n), w:narrow(ax, n + 1, n)
    local values = complex_of(wr, wi, ct)
    if not vectors then return values end
    if n == 0 then return values, zeros(cat(s, 0, 0), a):as(ct) end
    return values, unpack_vectors(fresh(mT(vr)), wi, s, n, ct)
  end

  function L.eig(a) return eig("eig", a, true) end
  function L.eigvals(a) return eig("eigvals", a, false) end

  -- MGL's gm.invert / gm.logdet (src/core/linalg.c: real mats only) on
  -- complex mats: the same rules and messages, through the complex rows
  -- of the jobs above (getrf, gesv), wherever a lives.  logdet's sign
  -- is then a complex number of modulus 1 (0 when singular), as NumPy's
  -- slogdet gives it.
  local real_invert, real_logdet = gm.invert, gm.logdet
  local function mgl_square(fn, a)
    local d = a:dims()
    if #d ~= 2 then argerror(1, fn, "matrix must be 2-dimensional, has rank %d", #d) end
    if d[1] ~= d[2] then argerror(1, fn, "matrix must be square, is %dx%d", d[1], d[2]) end
    if not gm.isfinite(a):all() then raise("%s: matrix contains NaN or infinity (getrf)", fn) end
    return d[1]
  end
  function gm.invert(a)
    if not (is_mat(a) and is_complex(a)) then return real_invert(a) end
    local n = mgl_square("invert", a)
    local x = fresh(gm.eye(n, opts_of(a)))
    local _, info = run("invert", "gesv", n, n, n, 0, false, false, false, fresh(a), x)
    if info > 0 then raise("invert: matrix is singular (zero pivot in row %d)", info) end
    return x
  end
  function gm.logdet(a)
    if not (is_mat(a) and is_complex(a)) then return real_logdet(a) end
    mgl_square("logdet", a)
    local sign, v = cx_slogdet("logdet", a)
    return v, sign
  end

  gm.linalg = argcheck.strict_table(L)
  -- the main namespace's names (the standard has them there too)
  for _, name in ipairs { "vecdot", "tensordot", "matrix_transpose" } do
    gm[name] = L[name]
    methods[name] = L[name]
  end
end
