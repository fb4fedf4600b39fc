-- invert and logdet through cuSOLVER's entry points, shared by
-- spec/cuda_review_spec.lua (emulated device: LAPACK behind cuSOLVER's
-- arguments) and spec/gpu/cusolver_spec.lua (cuSOLVER on a real GPU).
-- ready() returns false (after marking the test pending) to skip.
local gm = require "gpumat"
local assert = require "luassert"

return function(it, opts, ready)
  local A = { { 0, 2, 1 }, { 1, 1, 0 }, { 3, 0, 1 } } -- needs pivoting; det = -5
  local TOL = { float = 1e-5, double = 1e-12 }

  for _, ct in ipairs { "float", "double" } do
    it("inverts on the device without touching the host facet (" .. ct .. ") #outermost", function()
      if not ready() then return end
      gm.with_cuda(opts, function()
        local a = gm.mat({ 3, 3 }, { ctype = ct, initial_contents = A })
        gm.scal_(1, a) -- device facet newest
        local h2d = gm.counters().n_memcpy_host_to_device
        local inv = gm.invert(a)
        local v, sign = gm.logdet(a)
        assert.are.equal(0, gm.counters().n_memcpy_device_to_host)
        assert.are.equal(h2d, gm.counters().n_memcpy_host_to_device)
        assert.are.equal("C", inv:facets())
        assert.are.equal(-1, sign)
        assert.is_true(math.abs(v - math.log(5)) < TOL[ct] * 10)
        -- A * inv(A) = I, checked in plain Lua on the values read back
        for i = 1, 3 do
          for j = 1, 3 do
            local s = 0
            for k = 1, 3 do s = s + A[i][k] * inv:mref(k, j) end
            assert.is_true(math.abs(s - (i == j and 1 or 0)) < TOL[ct] * 10, ("(%d,%d): %g"):format(i, j, s))
          end
        end
      end)
    end)

    it("reports singular and non-finite matrices as the host does (" .. ct .. ") #outermost", function()
      if not ready() then return end
      gm.with_cuda(opts, function()
        local s = gm.mat({ 2, 2 }, { ctype = ct, initial_contents = { { 1, 2 }, { 2, 4 } } })
        gm.scal_(1, s)
        assert.has_error(function() gm.invert(s) end, "invert: matrix is singular (zero pivot in row 2)")
        local v, sign = gm.logdet(s)
        assert.are.equal(-math.huge, v)
        assert.are.equal(0, sign)
        local n = gm.mat({ 2, 2 }, { ctype = ct, initial_contents = { { 1, 0 / 0 }, { 0, 1 } } })
        gm.scal_(1, n)
        assert.has_error(function() gm.invert(n) end, "invert: matrix contains NaN or infinity (getrf)")
        assert.has_error(function() gm.logdet(n) end, "logdet: matrix contains NaN or infinity (getrf)")
        -- huge finite elements are not mistaken for NaN (the check's sum of squares overflows to inf)
        local big = gm.mat({ 2, 2 }, { ctype = ct, initial_contents = { { 1e30, 0 }, { 0, 2e30 } } })
        gm.scal_(1, big)
        local inv = gm.invert(big)
        assert.is_true(math.abs(inv:mref(1, 1) / 1e-30 - 1) < TOL[ct] * 10)
        assert.is_true(math.abs(inv:mref(2, 2) / 5e-31 - 1) < TOL[ct] * 10)
        assert.are.equal(0, inv:mref(1, 2))
      end)
    end)
  end
end
