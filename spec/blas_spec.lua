local gm = require "gpumat"
local R = require "blas_ref"

-- reference gemm on flat row-major storages (0-based offsets)
local function ref_gemm(alpha, A, B, beta, C, o)
  local out = {}
  for i = 1, #C do out[i] = C[i] end
  for i = 0, o.m - 1 do
    for j = 0, o.n - 1 do
      local s = 0
      for l = 0, o.k - 1 do
        local a = o.transpose_a and A[o.a0 + l * o.lda + i + 1] or A[o.a0 + i * o.lda + l + 1]
        local b = o.transpose_b and B[o.b0 + j * o.ldb + l + 1] or B[o.b0 + l * o.ldb + j + 1]
        s = s + a * b
      end
      local ci = o.c0 + i * o.ldc + j + 1
      out[ci] = alpha * s + (beta == 0 and 0 or beta * C[ci])
    end
  end
  return out
end

describe("blas", function()
  for _, ct in ipairs(R.ctypes) do
    describe(ct, function()
      it("asum, nrm2, dot on a displaced view with n and incx", function()
        R.places(function(place)
          local base = R.storage(ct, 20, 1)
          local v = R.vals(20, 1)
          local x = R.view(base, { 3, 4 }, 3) -- visible: v[4..15]
          local sa, s2 = 0, 0
          for i = 4, 15 do sa, s2 = sa + math.abs(v[i]), s2 + v[i] ^ 2 end
          R.close(gm.asum(x), sa, ct, place .. " asum")
          R.close(x:asum(), sa, ct, place .. " x:asum")
          R.close(gm.nrm2(x), math.sqrt(s2), ct, place .. " nrm2")
          -- n = 4, incx = 3: x[0], x[3], x[6], x[9]
          local sa3, s23 = 0, 0
          for i = 0, 3 do sa3, s23 = sa3 + math.abs(v[4 + 3 * i]), s23 + v[4 + 3 * i] ^ 2 end
          R.close(gm.asum(x, { n = 4, incx = 3 }), sa3, ct, place .. " strided asum")
          R.close(x:nrm2({ n = 4, incx = 3 }), math.sqrt(s23), ct, place .. " strided nrm2")
          local ybase = R.storage(ct, 10, 2)
          local w = R.vals(10, 2)
          local y = R.view(ybase, { 6 }, 2)
          local d = 0
          for i = 0, 5 do d = d + v[4 + i] * w[3 + i] end
          R.close(gm.dot(x, y, { n = 6 }), d, ct, place .. " dot")
          d = 0
          for i = 0, 2 do d = d + v[4 + 2 * i] * w[3 + 2 * i] end
          R.close(x:dot(y, { n = 3, incx = 2, incy = 2 }), d, ct, place .. " strided dot")
          assert.equal(0, gm.asum(x, { n = 0 }))
        end)
      end)

      it("axpy_ on displaced views leaves invisible and skipped elements alone", function()
        R.places(function(place)
          local xb, yb = R.storage(ct, 12, 3), R.storage(ct, 14, 4)
          local xv, yv = R.vals(12, 3), R.vals(14, 4)
          local x, y = R.view(xb, { 8 }, 2), R.view(yb, { 2, 4 }, 5)
          assert.equal(y, gm.axpy_(0.5, x, y))
          local exp = {}
          for i = 1, 14 do exp[i] = yv[i] end
          for i = 0, 7 do exp[6 + i] = yv[6 + i] + 0.5 * xv[3 + i] end
          R.same_list(R.flat(yb), exp, ct, place .. " axpy_")
          -- method form with n/incx/incy
          assert.equal(y, y:axpy_(-2, x, { n = 3, incx = 2, incy = 3 }))
          for i = 0, 2 do exp[6 + 3 * i] = exp[6 + 3 * i] - 2 * xv[3 + 2 * i] end
          R.same_list(R.flat(yb), exp, ct, place .. " strided axpy_")
          R.same_list(R.flat(xb), xv, ct, place .. " x unchanged")
        end)
      end)

      it("copy_ with n, incx and incy", function()
        R.places(function(place)
          local xb, yb = R.storage(ct, 10, 5), R.storage(ct, 10, 6)
          local xv, yv = R.vals(10, 5), R.vals(10, 6)
          local x, y = R.view(xb, { 6 }, 1), R.view(yb, { 7 }, 2)
          assert.equal(y, gm.copy_(x, y, { n = 3, incx = 2, incy = 3 }))
          local exp = { table.unpack(yv) }
          for i = 0, 2 do exp[3 + 3 * i] = xv[2 + 2 * i] end
          R.same_list(R.flat(yb), exp, ct, place .. " strided copy_")
          local z = gm.mat(6, { ctype = ct })
          assert.equal(z, z:copy_(x))
          R.same_list(R.flat(z), { table.unpack(xv, 2, 7) }, ct, place .. " y:copy_(x)")
        end)
      end)

      it("long unit-stride copies: over the cores, into views one to fifteen elements along", function()
        -- the host moves 1 MiB or more in 64-byte lines over the cores, and
        -- a destination a few bytes ahead of its source modulo 4 KB through
        -- a vector loop (core/mem/move.h): every element lands, nothing
        -- beside the view moves
        R.places(function(place)
          for _, n in ipairs { 5000, 300007 } do
            local x = gm.arange(n):as(ct)
            local y = x:copy()
            assert.equal(0, (y - x):abs():max(), place .. " copy " .. n)
            assert.equal(n - 1, y[n], place .. " copy's last " .. n)
            for _, k in ipairs { 1, 2, 3, 8, 15 } do
              local z = gm.full({ n + k }, -1, { ctype = ct })
              gm.copy_(x, z:narrow(1, k + 1, n))
              assert.equal(-1, z[k], place .. " element before the view")
              assert.equal(0, (z:narrow(1, k + 1, n) - x):abs():max(), place .. " view " .. k .. " along")
              z[{ { k + 1, n + k } }] = x:narrow(1, 1, n)
              assert.equal(0, (z:narrow(1, k + 1, n) - x):abs():max(), place .. " slice assignment " .. k)
            end
          end
        end)
      end)

      it("scal_ as function and method, with n and incx", function()
        R.places(function(place)
          local b = R.storage(ct, 10, 7)
          local v = R.vals(10, 7)
          local x = R.view(b, { 2, 3 }, 2)
          assert.equal(x, gm.scal_(2, x))
          local exp = { table.unpack(v) }
          for i = 3, 8 do exp[i] = 2 * v[i] end
          R.same_list(R.flat(b), exp, ct, place .. " scal_")
          assert.equal(x, x:scal_(-0.5, { n = 2, incx = 4 }))
          exp[3], exp[7] = exp[3] * -0.5, exp[7] * -0.5
          R.same_list(R.flat(b), exp, ct, place .. " strided scal_")
        end)
      end)

      it("gemm_ with every transpose combination (defaults)", function()
        R.places(function(place)
          for _, ta in ipairs { false, true } do
            for _, tb in ipairs { false, true } do
              local m, n, k = 3, 4, 5
              local A = R.vals(m * k, 8)
              local B = R.vals(k * n, 9)
              local C = R.vals(m * n, 10)
              local a = gm.mat(ta and { k, m } or { m, k }, { ctype = ct, initial_contents = A })
              local b = gm.mat(tb and { n, k } or { k, n }, { ctype = ct, initial_contents = B })
              local c = gm.mat({ m, n }, { ctype = ct, initial_contents = C })
              local o = { m = m, n = n, k = k, lda = ta and m or k, ldb = tb and k or n, ldc = n,
                          a0 = 0, b0 = 0, c0 = 0, transpose_a = ta, transpose_b = tb }
              assert.equal(c, gm.gemm_(1.5, a, b, -0.5, c, { transpose_a = ta, transpose_b = tb }))
              R.same_list(R.flat(c), ref_gemm(1.5, A, B, -0.5, C, o), ct,
                          string.format("%s gemm_ ta=%s tb=%s", place, ta, tb))
              -- method form, beta = 0 overwrites
              c:gemm_(1, a, b, 0, { transpose_a = ta, transpose_b = tb })
              R.same_list(R.flat(c), ref_gemm(1, A, B, 0, C, o), ct, place .. " c:gemm_")
            end
          end
        end)
      end)

      it("gemm_ with explicit m, n, k and wider leading dimensions on displaced views", function()
        R.places(function(place)
          for _, ta in ipairs { false, true } do
            for _, tb in ipairs { false, true } do
              -- MGL's example sizes: M=3, N=2, K=5, LDA=6, LDB=3, LDC=4
              local m, n, k, ldc = 3, 2, 5, 4
              local lda, ldb = ta and 4 or 6, tb and 7 or 3
              local arows, brows = ta and k or m, tb and n or k
              local ab, bb, cb = R.storage(ct, 2 + arows * lda + 3, 11), R.storage(ct, 1 + brows * ldb + 2, 12),
                                 R.storage(ct, 3 + m * ldc + 1, 13)
              local A, B, C = R.vals(2 + arows * lda + 3, 11), R.vals(1 + brows * ldb + 2, 12),
                              R.vals(3 + m * ldc + 1, 13)
              local a = R.view(ab, { arows, lda }, 2)
              local b = R.view(bb, { brows, ldb }, 1)
              local c = R.view(cb, { m, ldc }, 3)
              local opts = { transpose_a = ta, transpose_b = tb, m = m, n = n, k = k, lda = lda, ldb = ldb, ldc = ldc }
              gm.gemm_(2, a, b, 0.25, c, opts)
              local o = { m = m, n = n, k = k, lda = lda, ldb = ldb, ldc = ldc, a0 = 2, b0 = 1, c0 = 3,
                          transpose_a = ta, transpose_b = tb }
              R.same_list(R.flat(cb), ref_gemm(2, A, B, 0.25, C, o), ct,
                          string.format("%s explicit gemm_ ta=%s tb=%s", place, ta, tb))
              R.same_list(R.flat(ab), A, ct, place .. " a unchanged")
              R.same_list(R.flat(bb), B, ct, place .. " b unchanged")
            end
          end
        end)
      end)

      it("copy_ and axpy_ refuse partially overlapping x and y, allow identical or disjoint ones", function()
        R.places(function(place)
          local base = R.storage(ct, 12, 14)
          local v = R.vals(12, 14)
          local x = R.view(base, { 5 }, 1)
          local y = R.view(base, { 5 }, 3)
          assert.has_error(function() gm.copy_(x, y) end,
                           "bad argument #2 to 'copy_' (x and y overlap in the same storage)")
          assert.has_error(function() y:axpy_(1, x) end,
                           "bad argument #3 to 'axpy_' (x and y overlap in the same storage)")
          -- strided: x = base[0, 3, 6], y = base[3, 5, 7] share base[3]
          local x0, y3 = R.view(base, { 12 }, 0), R.view(base, { 9 }, 3)
          assert.has_error(function() gm.copy_(x0, y3, { n = 3, incx = 3, incy = 2 }) end,
                           "bad argument #2 to 'copy_' (x and y overlap in the same storage)")
          R.same_list(R.flat(base), v, ct, place .. " nothing written")
          -- the very same vector: copy_ is a no-op, axpy_ doubles
          gm.copy_(x, x)
          gm.axpy_(1, x, x)
          local exp = { table.unpack(v) }
          for i = 2, 6 do exp[i] = 2 * v[i] end
          R.same_list(R.flat(base), exp, ct, place .. " x := x + x")
          -- interleaved but disjoint: column 1 -> column 2 of a 4x3 view
          local m = R.view(base, { 4, 3 }, 0)
          local c1, c2 = R.view(base, { 10 }, 0), R.view(base, { 10 }, 1)
          gm.copy_(c1, c2, { n = 4, incx = 3, incy = 3 })
          for i = 0, 3 do exp[3 * i + 2] = exp[3 * i + 1] end
          R.same_list(R.flat(m), exp, ct, place .. " column copy")
        end)
      end)

      it("scal_ by 0 keeps IEEE semantics at every size; axpy_ with alpha 0 is a no-op", function()
        R.places(function(place)
          for _, n in ipairs { 4, 100 } do
            local x = gm.mat(n, { ctype = ct, initial_element = math.huge })
            x:set(1, 2)
            x:scal_(0)
            assert.equal(0, x:mref(1))
            assert.is_true(x:mref(n) ~= x:mref(n), place .. " 0 * inf is NaN, n = " .. n)
            local y = gm.mat(n, { ctype = ct, initial_element = 3 })
            local z = gm.mat(n, { ctype = ct, initial_element = math.huge })
            y:axpy_(0, z)
            assert.equal(3, y:mref(n), place .. " axpy_ alpha 0, n = " .. n)
          end
        end)
      end)

      it("gemm_ edge cases: k = 0, empty c, rank-1 operands with explicit sizes", function()
        R.places(function(place)
          local c = gm.mat({ 2, 2 }, { ctype = ct, initial_element = 3 })
          gm.gemm_(1, gm.mat({ 2, 0 }, { ctype = ct }), gm.mat({ 0, 2 }, { ctype = ct }), 0.5, c)
          assert.same({ { 1.5, 1.5 }, { 1.5, 1.5 } }, c:to_table())
          gm.gemm_(1, gm.mat({ 2, 0 }, { ctype = ct }), gm.mat({ 0, 2 }, { ctype = ct }), 0, c)
          assert.same({ { 0, 0 }, { 0, 0 } }, c:to_table())
          local e = gm.mat({ 0, 2 }, { ctype = ct })
          assert.equal(e, gm.gemm_(1, gm.mat({ 0, 3 }, { ctype = ct }), gm.mat({ 3, 2 }, { ctype = ct }), 0, e))
          -- flat storages: A 2x3 (lda 3), B 3x2 (ldb 2), C 2x2 (ldc 2)
          local a = gm.mat(6, { ctype = ct, initial_contents = { 1, 2, 3, 4, 5, 6 } })
          local b = gm.mat(6, { ctype = ct, initial_contents = { 1, 2, 3, 4, 5, 6 } })
          local c1 = gm.mat(4, { ctype = ct })
          gm.gemm_(1, a, b, 0, c1, { m = 2, n = 2, k = 3, lda = 3, ldb = 2, ldc = 2 })
          assert.same({ 22, 28, 49, 64 }, c1:to_table())
        end)
      end)

      it("gemm_ with beta = 0 ignores NaN in c", function()
        local a = gm.mat({ 2, 2 }, { ctype = ct, initial_contents = { 1, 2, 3, 4 } })
        local c = gm.mat({ 2, 2 }, { ctype = ct, initial_element = 0 / 0 })
        gm.gemm_(1, a, a, 0, c)
        assert.same({ { 7, 10 }, { 15, 22 } }, c:to_table())
      end)
    end)
  end

  describe("bad arguments", function()
    local x = gm.mat(5, { ctype = "double" })
    local f = gm.mat(5, { ctype = "float" })

    it("mixed ctypes name both", function()
      assert.has_error(function() gm.dot(x, f) end, "bad argument #2 to 'dot' (mixed ctypes double and float)")
      assert.has_error(function() gm.axpy_(1, x, f) end, "bad argument #3 to 'axpy_' (mixed ctypes double and float)")
      assert.has_error(function() f:axpy_(1, x) end, "bad argument #3 to 'axpy_' (mixed ctypes double and float)")
      assert.has_error(function() gm.copy_(f, x) end, "bad argument #2 to 'copy_' (mixed ctypes float and double)")
      local a2 = gm.mat({ 2, 2 })
      local f2 = gm.mat({ 2, 2 }, { ctype = "float" })
      assert.has_error(function() gm.gemm_(1, a2, f2, 0, a2) end,
                       "bad argument #3 to 'gemm_' (mixed ctypes double and float)")
      assert.has_error(function() gm.gemm_(1, a2, a2, 0, f2) end,
                       "bad argument #5 to 'gemm_' (mixed ctypes double and float)")
    end)

    it("n and inc are checked against the visible size", function()
      assert.has_error(function() gm.asum(x, { n = 6 }) end,
                       "bad argument #1 to 'asum' (n 6 with incx 1 needs 6 elements, x has 5)")
      assert.has_error(function() x:scal_(2, { n = 3, incx = 3 }) end,
                       "bad argument #2 to 'scal_' (n 3 with incx 3 needs 7 elements, x has 5)")
      assert.has_error(function() gm.dot(x, gm.mat(3), { incy = 2 }) end,
                       "bad argument #2 to 'dot' (n 5 with incy 2 needs 9 elements, y has 3)")
      assert.has_error(function() gm.axpy_(1, x, gm.mat(4)) end,
                       "bad argument #3 to 'axpy_' (n 5 with incy 1 needs 5 elements, y has 4)")
      assert.has_error(function() gm.nrm2(x, { incx = 0 }) end, "bad argument #1 to 'nrm2' (incx must be positive, got 0)")
      assert.has_error(function() gm.asum(x, { n = -1 }) end,
                       "bad argument #2 to 'asum' (option 'n' must be non-negative, got -1)")
      assert.has_error(function() gm.asum(x, { m = 1 }) end, "bad argument #2 to 'asum' (unknown option 'm')")
      assert.has_error(function() x:scal_("a") end, "bad argument #1 to 'scal_' (alpha must be a number, got string)")
      assert.has_error(function() gm.scal_(2, {}) end, "bad argument #2 to 'scal_' (gpumat.mat expected, got table)")
      local y = gm.mat(2)
      y:free()
      assert.has_error(function() gm.scal_(2, y) end, "bad argument #2 to 'scal_' (attempt to use a freed mat)")
    end)

    it("gemm_ shapes", function()
      local a = gm.mat({ 2, 3 })
      local b = gm.mat({ 4, 2 })
      local c = gm.mat({ 2, 2 })
      assert.has_error(function() gm.gemm_(1, a, b, 0, c) end, "bad argument #2 to 'gemm_' (inner dimensions differ: 3 vs 4)")
      assert.has_error(function() gm.gemm_(1, gm.mat({ 3, 3 }), gm.mat({ 3, 2 }), 0, c) end,
                       "bad argument #2 to 'gemm_' (op(a) has 3 rows, c has 2)")
      assert.has_error(function() gm.gemm_(1, gm.mat({ 2, 3 }), gm.mat({ 3, 3 }), 0, c) end,
                       "bad argument #3 to 'gemm_' (op(b) has 3 columns, c has 2)")
      assert.has_error(function() gm.gemm_(1, a, gm.mat({ 3, 2 }), 0, c, { ldc = 1 }) end,
                       "bad argument #5 to 'gemm_' (n 2 exceeds ldc 1)")
      assert.has_error(function() gm.gemm_(1, a, gm.mat({ 3, 2 }), 0, c, { m = 3, lda = 3 }) end,
                       "bad argument #2 to 'gemm_' (a: a 3x3 block with leading dimension 3 needs 9 elements, has 6)")
      assert.has_error(function() gm.gemm_(1, a, gm.mat({ 3, 2 }), 0, c, { k = 4 }) end,
                       "bad argument #2 to 'gemm_' (k 4 exceeds lda 3)")
      assert.has_error(function() gm.gemm_(1, gm.mat(6), gm.mat({ 3, 2 }), 0, c) end,
                       "bad argument #2 to 'gemm_' (a must be 2-dimensional to default k and lda (rank 1))")
      assert.has_error(function() gm.gemm_(1, a, gm.mat({ 3, 2 }), 0, c, { foo = 1 }) end,
                       "bad argument #6 to 'gemm_' (unknown option 'foo')")
      local s = gm.mat(8)
      local sa = gm.mat({ 2, 2 }, { displaced_to = s })
      local sc = gm.mat({ 2, 2 }, { displaced_to = s, displacement = 2 })
      assert.has_error(function() gm.gemm_(1, sa, sa, 0, sc) end,
                       "bad argument #5 to 'gemm_' (c overlaps a in the same storage)")
      -- disjoint blocks of one storage are fine
      local sd = gm.mat({ 2, 2 }, { displaced_to = s, displacement = 4 })
      gm.gemm_(1, sa, sa, 0, sd)
    end)

    it("a failed op changes nothing", function()
      local y = gm.mat(3, { initial_contents = { 1, 2, 3 } })
      pcall(gm.axpy_, 1, x, y)
      assert.same({ 1, 2, 3 }, y:to_table())
      local c = gm.mat({ 2, 2 }, { initial_contents = { { 1, 2 }, { 3, 4 } } })
      assert.has_error(function() gm.gemm_(1, c, c, 0, c) end,
                       "bad argument #5 to 'gemm_' (c overlaps a in the same storage)")
      assert.same({ { 1, 2 }, { 3, 4 } }, c:to_table())
    end)

    it("gemm_ rejects rank-3 operands and bad option values", function()
      local c = gm.mat({ 2, 2 })
      local b = gm.mat({ 3, 2 })
      assert.has_error(function() gm.gemm_(1, gm.mat({ 2, 3, 1 }), b, 0, c) end,
                       "bad argument #2 to 'gemm_' (a must be 2-dimensional to default k and lda (rank 3))")
      assert.has_error(function() gm.gemm_(1, gm.mat({ 2, 3 }), b, 0, gm.mat({ 2, 2, 1 })) end,
                       "bad argument #5 to 'gemm_' (c must be 2-dimensional to default m (rank 3))")
      assert.has_error(function() gm.gemm_(1, gm.mat({ 2, 3 }), b, 0, c, { lda = -1 }) end,
                       "bad argument #6 to 'gemm_' (option 'lda' must be non-negative, got -1)")
      assert.has_error(function() gm.gemm_(1, gm.mat({ 2, 3 }), b, 0, c, { transpose_a = 1 }) end,
                       "bad argument #6 to 'gemm_' (option 'transpose_a' must be a boolean, got number)")
      assert.has_error(function() gm.gemm_(1, gm.mat({ 2, 3 }), b, 0, c, { lda = 2 ^ 40 }) end,
                       "bad argument #2 to 'gemm_' (leading dimension 1099511627776 is too large for BLAS (max 2147483647))")
      assert.has_error(function() gm.gemm_(1, gm.mat({ 2, 3 }), b, nil, c) end,
                       "bad argument #4 to 'gemm_' (beta must be a number, got nil)")
      assert.has_error(function() c:gemm_(1, gm.mat({ 2, 3 }), 5, 0) end,
                       "bad argument #3 to 'gemm_' (gpumat.mat expected, got number)")
    end)

    it("level 1 rejects bad increments and huge counts", function()
      assert.has_error(function() gm.asum(x, { incx = -1 }) end,
                       "bad argument #2 to 'asum' (option 'incx' must be non-negative, got -1)")
      assert.has_error(function() gm.dot(x, x, { incy = 0 }) end, "bad argument #2 to 'dot' (incy must be positive, got 0)")
      -- counts beyond BLAS's int are split into several calls (docs/GPU.md): a huge n
      -- is refused only because x is too small
      assert.has_error(function() gm.asum(x, { n = math.maxinteger }) end,
                       "bad argument #1 to 'asum' (n 9223372036854775807 with incx 1 needs 9223372036854775807 elements, x has 5)")
      assert.has_error(function() gm.copy_(x, gm.mat(5), { n = 2, incx = math.maxinteger }) end,
                       "bad argument #1 to 'copy_' (incx 9223372036854775807 is too large for BLAS (max 2147483647))")
      assert.has_error(function() gm.asum(x, 5) end, "bad argument #2 to 'asum' (options table expected, got number)")
    end)
  end)
end)
