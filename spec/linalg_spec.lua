local gm = require "gpumat"
local R = require "blas_ref"

local function matmul(a, b)
  local n, m, p = #a, #b, #b[1]
  local c = {}
  for i = 1, n do
    c[i] = {}
    for j = 1, p do
      local s = 0
      for l = 1, m do s = s + a[i][l] * b[l][j] end
      c[i][j] = s
    end
  end
  return c
end

describe("linalg", function()
  local A = { { 4, 7, 2 }, { 3, 6, 1 }, { 2, 5, 3 } } -- det 9
  for _, ct in ipairs(R.ctypes) do
    describe(ct, function()
      it("invert gives a * inv(a) = identity, also for a displaced view", function()
        R.places(function(place)
          local base = gm.mat(13, { ctype = ct, initial_element = 7 })
          local a = R.view(base, { 3, 3 }, 2)
          a:replace_(A)
          local inv = gm.invert(a)
          assert.same({ 3, 3 }, inv:dims())
          assert.equal(ct, inv:ctype())
          local p = R.flatten(matmul(A, inv:to_table()))
          R.same_list(p, { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, ct, place .. " a * inv(a)")
          -- known entries: inv(A)[1][1] = (6*3 - 1*5) / 9
          R.close(inv:mref(1, 1), 13 / 9, ct, place .. " inv[1][1]")
          local b = R.flat(base)
          assert.same({ 7, 7 }, { b[1], b[2] })
          assert.same({ 7, 7 }, { b[12], b[13] })
        end)
      end)

      it("invert of a singular matrix is an error", function()
        local s = gm.mat({ 2, 2 }, { ctype = ct, initial_contents = { { 1, 2 }, { 2, 4 } } })
        assert.has_error(function() gm.invert(s) end, "invert: matrix is singular (zero pivot in row 2)")
        assert.same({ { 1, 2 }, { 2, 4 } }, s:to_table())
      end)

      it("NaN is a clear error; 0x0 is fine", function()
        local n = gm.mat({ 2, 2 }, { ctype = ct, initial_contents = { { 1, 0 / 0 }, { 2, 4 } } })
        assert.has_error(function() gm.invert(n) end, "invert: matrix contains NaN or infinity (getrf)")
        assert.has_error(function() gm.logdet(n) end, "logdet: matrix contains NaN or infinity (getrf)")
        assert.same({ 0, 0 }, gm.invert(gm.mat({ 0, 0 }, { ctype = ct })):dims())
        assert.same({ 0, 1 }, { gm.logdet(gm.mat({ 0, 0 }, { ctype = ct })) })
      end)

      it("logdet of a displaced view", function()
        R.places(function(place)
          local base = gm.mat(12, { ctype = ct, initial_element = 100 })
          local a = R.view(base, { 3, 3 }, 1)
          a:replace_({ A[2], A[1], A[3] })
          local v, s = gm.logdet(a)
          R.close(v, math.log(9), ct, place .. " logdet")
          assert.equal(-1, s)
          local b = R.flat(base)
          assert.same({ 100, 100, 100 }, { b[1], b[11], b[12] })
        end)
      end)

      it("logdet returns log |det| and the sign", function()
        R.places(function(place)
          local a = gm.mat({ 3, 3 }, { ctype = ct, initial_contents = A })
          local v, s = gm.logdet(a)
          R.close(v, math.log(9), ct, place .. " logdet")
          assert.equal(1, s)
          assert.same(A, a:to_table()) -- input untouched
          local neg = gm.mat({ 3, 3 }, { ctype = ct, initial_contents = { A[2], A[1], A[3] } })
          v, s = gm.logdet(neg)
          R.close(v, math.log(9), ct, place .. " logdet of -9")
          assert.equal(-1, s)
          v, s = gm.logdet(gm.mat({ 1, 1 }, { ctype = ct, initial_element = -0.5 }))
          R.close(v, math.log(0.5), ct, place .. " 1x1")
          assert.equal(-1, s)
          v, s = gm.logdet(gm.mat({ 2, 2 }, { ctype = ct, initial_contents = { { 1, 2 }, { 2, 4 } } }))
          assert.equal(-math.huge, v)
          assert.equal(0, s)
        end)
      end)
    end)
  end

  it("rejects non-square and non-2d mats", function()
    assert.has_error(function() gm.invert(gm.mat({ 2, 3 })) end, "bad argument #1 to 'invert' (matrix must be square, is 2x3)")
    assert.has_error(function() gm.logdet(gm.mat(4)) end, "bad argument #1 to 'logdet' (matrix must be 2-dimensional, has rank 1)")
    assert.has_error(function() gm.invert(5) end, "bad argument #1 to 'invert' (gpumat.mat expected, got number)")
    assert.has_error(function() gm.invert(gm.mat({ 2, 2, 2 })) end,
                     "bad argument #1 to 'invert' (matrix must be 2-dimensional, has rank 3)")
    assert.has_error(function() gm.logdet(gm.mat({ 3, 2 })) end, "bad argument #1 to 'logdet' (matrix must be square, is 3x2)")
  end)
end)
