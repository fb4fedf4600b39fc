local gm = require "gpumat"
local R = require "blas_ref"

describe("non-destructive", function()
  for _, ct in ipairs(R.ctypes) do
    describe(ct, function()
      -- a 3x4 view at displacement 2 of 16 elements
      local function setup()
        local base = R.storage(ct, 16, 21)
        return base, R.view(base, { 3, 4 }, 2), R.vals(16, 21)
      end
      local function at(v, i, j) return v[2 + (i - 1) * 4 + j] end

      it("copy_mat / a:copy() copy the visible part", function()
        R.places(function(place)
          local base, a, v = setup()
          local c = gm.copy_mat(a)
          assert.same({ 3, 4 }, c:dims())
          assert.equal(0, c:displacement())
          assert.equal(ct, c:ctype())
          R.same_list(R.flat(c), { table.unpack(v, 3, 14) }, ct, place .. " copy_mat")
          local d = a:copy()
          d:scal_(0)
          R.same_list(R.flat(base), v, ct, place .. " original untouched")
        end)
      end)

      it("copy_row and copy_column at any displacement and column", function()
        R.places(function(place)
          local _, a, v = setup()
          for i = 1, 3 do
            local r = gm.copy_row(a, i)
            assert.same({ 4 }, r:dims())
            R.same_list(R.flat(r), { at(v, i, 1), at(v, i, 2), at(v, i, 3), at(v, i, 4) }, ct, place .. " row " .. i)
          end
          for j = 1, 4 do
            local c = gm.copy_column(a, j)
            assert.same({ 3 }, c:dims())
            R.same_list(R.flat(c), { at(v, 1, j), at(v, 2, j), at(v, 3, j) }, ct, place .. " column " .. j)
          end
        end)
        local _, a = setup()
        assert.has_error(function() gm.copy_row(a, 4) end, "bad argument #2 to 'copy_row' (row 4 is out of range 1..3)")
        assert.has_error(function() gm.copy_column(a, 0) end, "bad argument #2 to 'copy_column' (column 0 is out of range 1..4)")
        assert.has_error(function() gm.copy_row(gm.mat(3), 1) end, "bad argument #1 to 'copy_row' (matrix must be 2-dimensional, has rank 1)")
      end)

      it("mat_as_scalar and scalar_as_mat", function()
        local m = gm.scalar_as_mat(0.1, { ctype = ct })
        assert.same({ 1 }, m:dims())
        assert.equal(ct, m:ctype())
        assert.equal(gm.coerce_to_ctype(0.1, ct), gm.mat_as_scalar(m))
        local _, a, v = setup()
        local one = gm.mat({ 1, 1 }, { displaced_to = a, displacement = 5 })
        assert.equal(v[8], gm.mat_as_scalar(one))
        assert.has_error(function() gm.mat_as_scalar(a) end, "bad argument #1 to 'mat_as_scalar' (mat must have size 1, has 12)")
      end)

      it("m_eq compares visible elements", function()
        R.places(function(place)
          local _, a = setup()
          local c = a:copy()
          assert.is_true(gm.m_eq(a, c))
          c:set(2, 3, 100)
          assert.is_false(gm.m_eq(a, c))
        end)
        assert.has_error(function() gm.m_eq(gm.mat(2), gm.mat(3)) end, "bad argument #2 to 'm_eq' (sizes differ: 2 vs 3)")
      end)

      it("transpose", function()
        R.places(function(place)
          local _, a, v = setup()
          local t = a:transpose()
          assert.same({ 4, 3 }, t:dims())
          local exp = {}
          for j = 1, 4 do for i = 1, 3 do exp[#exp + 1] = at(v, i, j) end end
          R.same_list(R.flat(t), exp, ct, place .. " transpose")
          R.same_list(R.flat(gm.transpose(t)), R.flat(a), ct, place .. " transpose twice")
        end)
      end)

      it("m_mul, mm_mul, m_add, m_sub", function()
        R.places(function(place)
          local a = gm.mat({ 2, 3 }, { ctype = ct, initial_contents = { { 1, 2, 3 }, { 4, 5, 6 } } })
          local b = gm.mat({ 3, 2 }, { ctype = ct, initial_contents = { { 1, 2 }, { 3, 4 }, { 5, 6 } } })
          assert.same({ { 22, 28 }, { 49, 64 } }, gm.m_mul(a, b):to_table())
          assert.same({ { 14, 32 }, { 32, 77 } }, gm.m_mul(a, a, { transpose_b = true }):to_table())
          assert.same({ { 9, 19, 29 }, { 12, 26, 40 }, { 15, 33, 51 } }, gm.m_mul(a, b, { transpose_a = true, transpose_b = true }):to_table())
          assert.same({ { 14, 32 }, { 32, 77 } }, gm.mm_mul(a, { a, transpose = true }):to_table())
          assert.same({ { 22, 28 }, { 49, 64 } }, gm.mm_mul(a, b):to_table())
          assert.same({ { 1, 4 }, { 2, 5 }, { 3, 6 } }, gm.mm_mul({ a, transpose = true }):to_table())
          assert.equal(a, gm.mm_mul(a))
          assert.same({ { 22 * 1 + 28 * 4, 22 * 2 + 28 * 5, 22 * 3 + 28 * 6 }, { 49 * 1 + 64 * 4, 49 * 2 + 64 * 5, 49 * 3 + 64 * 6 } },
                      gm.mm_mul(a, b, a):to_table())
          assert.same({ { 2, 4, 6 }, { 8, 10, 12 } }, gm.m_add(a, a):to_table())
          assert.same({ { 0, 0, 0 }, { 0, 0, 0 } }, gm.m_sub(a, a):to_table())
        end)
      end)

      it("m_mul, m_add, m_sub and operators on displaced views leave the storages alone", function()
        R.places(function(place)
          local ab, bb = R.storage(ct, 10, 31), R.storage(ct, 11, 32)
          local av, bv = R.vals(10, 31), R.vals(11, 32)
          local a = R.view(ab, { 2, 3 }, 1) -- av[2..7]
          local b = R.view(bb, { 3, 2 }, 4) -- bv[5..10]
          local bt = R.view(bb, { 2, 3 }, 4)
          local function A(i, j) return av[1 + (i - 1) * 3 + j] end
          local function B(i, j) return bv[4 + (i - 1) * 2 + j] end
          local function BT(i, j) return bv[4 + (i - 1) * 3 + j] end
          local prod, sum, diff = {}, {}, {}
          for i = 1, 2 do
            for j = 1, 2 do
              local s0 = 0
              for l = 1, 3 do s0 = s0 + A(i, l) * B(l, j) end
              prod[#prod + 1] = s0
            end
            for j = 1, 3 do
              sum[#sum + 1] = A(i, j) + BT(i, j)
              diff[#diff + 1] = A(i, j) - BT(i, j)
            end
          end
          R.same_list(R.flat(gm.m_mul(a, b)), prod, ct, place .. " m_mul")
          R.same_list(R.flat(a * b), prod, ct, place .. " a * b")
          R.same_list(R.flat(gm.m_add(a, bt)), sum, ct, place .. " m_add")
          R.same_list(R.flat(a + bt), sum, ct, place .. " a + b")
          R.same_list(R.flat(gm.m_sub(a, bt)), diff, ct, place .. " m_sub")
          R.same_list(R.flat(a - bt), diff, ct, place .. " a - b")
          local neg, half = {}, {}
          for i = 2, 7 do neg[#neg + 1], half[#half + 1] = -av[i], av[i] / 2 end
          R.same_list(R.flat(-a), neg, ct, place .. " -a")
          R.same_list(R.flat(a / 2), half, ct, place .. " a / 2")
          R.same_list(R.flat(0.5 * a), half, ct, place .. " 0.5 * a")
          R.same_list(R.flat(ab), av, ct, place .. " a's storage")
          R.same_list(R.flat(bb), bv, ct, place .. " b's storage")
        end)
      end)

      it("copy_column of a one-column mat and copy_row of an empty row", function()
        R.places(function(place)
          local base = R.storage(ct, 6, 33)
          local v = R.vals(6, 33)
          local col = R.view(base, { 3, 1 }, 2)
          R.same_list(R.flat(gm.copy_column(col, 1)), { v[3], v[4], v[5] }, ct, place .. " one column")
          assert.same({ 0 }, gm.copy_row(gm.mat({ 2, 0 }, { ctype = ct }), 2):dims())
          assert.same({ 0 }, gm.copy_column(gm.mat({ 0, 3 }, { ctype = ct }), 3):dims())
        end)
      end)

      it("operators", function()
        R.places(function(place)
          local a = gm.mat({ 2, 2 }, { ctype = ct, initial_contents = { { 1, 2 }, { 3, 4 } } })
          local b = gm.mat({ 2, 2 }, { ctype = ct, initial_contents = { { 0.5, 0 }, { -1, 2 } } })
          assert.same({ { 1.5, 2 }, { 2, 6 } }, (a + b):to_table())
          assert.same({ { 0.5, 2 }, { 4, 2 } }, (a - b):to_table())
          assert.same({ { -1, -2 }, { -3, -4 } }, (-a):to_table())
          assert.same({ { -1.5, 4 }, { -2.5, 8 } }, (a * b):to_table())
          assert.same({ { 2, 4 }, { 6, 8 } }, (2 * a):to_table())
          assert.same({ { 0.5, 1 }, { 1.5, 2 } }, (a * 0.5):to_table())
          assert.same({ { 0.25, 0.5 }, { 0.75, 1 } }, (a / 4):to_table())
          assert.same({ { 1, 2 }, { 3, 4 } }, a:to_table()) -- operands untouched
          assert.is_false(a == a:copy()) -- == is identity
          assert.is_true(a == a)
        end)
      end)
    end)
  end

  it("rejects bad operands", function()
    local d, f = gm.mat({ 2, 2 }), gm.mat({ 2, 2 }, { ctype = "float" })
    assert.are.equal("double", (d + f):ctype()) -- promotes
    assert.has_error(function() gm.m_sub(d, gm.mat(3)) end, "bad argument #2 to 'm_sub' (sizes differ: 4 vs 3)")
    assert.has_error(function() return d + "1" end, "bad argument #2 to '__add' (mat or number expected, got string)")
    assert.has_error(function() gm.m_mul(d, gm.mat({ 3, 2 })) end, "bad argument #2 to 'm_mul' (inner dimensions differ: 2 vs 3)")
    assert.has_error(function() gm.mm_mul(d, gm.mat({ 3, 2 })) end, "bad argument #2 to 'mm_mul' (inner dimensions differ: 2 vs 3)")
    assert.has_error(function() gm.mm_mul(d, { d, transpose = true, x = 1 }) end, "bad argument #2 to 'mm_mul' (unknown field 'x')")
    assert.has_error(function() gm.transpose(gm.mat(3)) end, "bad argument #1 to 'transpose' (matrix must be 2-dimensional, has rank 1)")
    assert.has_error(function() gm.scalar_as_mat(1, { ctype = "int" }) end,
                     "bad argument #2 to 'scalar_as_mat' (option 'ctype' must be \"float\" (\"float32\"), \"double\" (\"float64\"), \"bool\", \"int8\", \"int16\", \"int32\", \"int64\", \"uint8\", \"uint16\", \"uint32\" or \"uint64\", got int)")
    assert.has_error(function() gm.scalar_as_mat("1") end, "bad argument #1 to 'scalar_as_mat' (number expected, got string)")
    assert.are.equal("double", (d * f):ctype()) -- promotes too (gm.matmul)
    assert.has_error(function() return d * gm.mat({ 3, 2 }) end, "bad argument #2 to '__mul' (inner dimensions differ: 2 vs 3)")
    assert.has_error(function() return d * "2" end, "bad argument #2 to '__mul' (mat or number expected, got string)")
    assert.has_error(function() return {} * d end, "bad argument #1 to '__mul' (mat or number expected, got table)")
    -- an operand of rank > 2 makes `*` gm.matmul (batched), whose shape errors name matmul
    assert.has_error(function() return d * gm.mat({ 2, 3, 1 }) end, "matmul: inner dimensions differ: 2 vs 3")
    assert.has_error(function() return "2" / d end, "bad argument #1 to '__div' (mat or number expected, got string)")
    assert.has_error(function() gm.copy_row(d, math.maxinteger) end,
                     "bad argument #2 to 'copy_row' (row 9223372036854775807 is out of range 1..2)")
    assert.has_error(function() gm.copy_row(d, 1.5) end, "bad argument #2 to 'copy_row' (row must be an integer, got number)")
    assert.has_error(function() gm.copy_column(d) end, "bad argument #2 to 'copy_column' (column must be an integer, got no value)")
    assert.has_error(function() gm.m_eq(d, f) end, "bad argument #2 to 'm_eq' (mixed ctypes double and float)")
    assert.has_error(function() gm.m_mul(d, d, { transpose = true }) end, "bad argument #3 to 'm_mul' (unknown option 'transpose')")
    assert.has_error(function() gm.m_mul(d, gm.mat(2)) end, "bad argument #2 to 'm_mul' (matrix must be 2-dimensional, has rank 1)")
    assert.has_error(function() gm.mm_mul(d, { d, transpose = "yes" }) end,
                     "bad argument #2 to 'mm_mul' (field 'transpose' must be a boolean, got string)")
    assert.has_error(function() gm.mm_mul(d, { 5 }) end, "bad argument #2 to 'mm_mul' (gpumat.mat expected, got number)")
    local freed = gm.mat({ 2, 2 })
    freed:free()
    assert.has_error(function() gm.copy_mat(freed) end, "bad argument #1 to 'copy_mat' (attempt to use a freed mat)")
    assert.has_error(function() return freed + d end, "bad argument #1 to '__add' (attempt to use a freed mat)")
  end)
end)
