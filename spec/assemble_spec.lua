local gm = require "gpumat"
local R = require "blas_ref"

describe("assembling and mappings", function()
  for _, ct in ipairs(R.ctypes) do
    describe(ct, function()
      it("stack along axes 1 and 2 (MGL's example)", function()
        R.places(function(place)
          local a = gm.mat({ 3, 2 }, { ctype = ct, initial_element = 0 })
          local b = gm.mat({ 3, 1 }, { ctype = ct, initial_element = 1 })
          local s = gm.stack(2, { a, b })
          assert.equal(ct, s:ctype())
          assert.same({ { 0, 0, 1 }, { 0, 0, 1 }, { 0, 0, 1 } }, s:to_table())
          local v = gm.mat({ 1, 2 }, { ctype = ct, initial_contents = { { 5, 6 } } })
          assert.same({ { 0, 0 }, { 0, 0 }, { 0, 0 }, { 5, 6 } }, gm.stack(1, { a, v }):to_table())
        end)
      end)

      it("stack along axis 2 of 3d mats", function()
        R.places(function(place)
          local a = gm.mat({ 2, 1, 2 }, { ctype = ct, initial_contents = { { { 1, 2 } }, { { 3, 4 } } } })
          local b = gm.mat({ 2, 2, 2 }, { ctype = ct, initial_contents = { { { 5, 6 }, { 7, 8 } }, { { 9, 10 }, { 11, 12 } } } })
          local s = gm.stack(2, { a, b })
          assert.same({ { { 1, 2 }, { 5, 6 }, { 7, 8 } }, { { 3, 4 }, { 9, 10 }, { 11, 12 } } }, s:to_table())
          local c = gm.mat({ 2, 1, 1 }, { ctype = ct, initial_contents = { { { 9 } }, { { 10 } } } })
          assert.same({ { { 1, 2, 9 } }, { { 3, 4, 10 } } }, gm.stack(3, { a, c }):to_table())
        end)
      end)

      it("stack_ into a displaced view leaves invisible elements alone", function()
        R.places(function(place)
          local base = gm.mat(10, { ctype = ct, initial_element = -1 })
          local dst = gm.mat({ 2, 3 }, { displaced_to = base, displacement = 2 })
          local a = gm.mat({ 2, 1 }, { ctype = ct, initial_contents = { { 1 }, { 2 } } })
          local b = gm.mat({ 2, 2 }, { ctype = ct, initial_contents = { { 3, 4 }, { 5, 6 } } })
          assert.equal(dst, gm.stack_(2, { a, b }, dst))
          assert.same({ -1, -1, 1, 3, 4, 2, 5, 6, -1, -1 }, base:to_table())
        end)
      end)

      it("stack converts to the ctype option", function()
        local a = gm.mat(2, { ctype = ct, initial_element = 0.1 })
        local other = ct == "float" and "double" or "float"
        local s = gm.stack(1, { a, a }, { ctype = other })
        assert.equal(other, s:ctype())
        assert.equal(gm.coerce_to_ctype(gm.coerce_to_ctype(0.1, ct), other), s:mref(4))
      end)

      it("map_concat (MGL's example, key and pass_raw)", function()
        R.places(function(place)
          local mat = gm.mat({ 2, 3 }, { ctype = ct })
          local r = gm.map_concat(gm.copy_, { gm.mat(2, { ctype = ct }), gm.mat(4, { ctype = ct, initial_element = 1 }) }, mat)
          assert.equal(mat, r)
          assert.same({ { 0, 0, 1 }, { 1, 1, 1 } }, mat:to_table())
          assert.same({ 2, 3 }, mat:dims())
          local items = { { m = gm.mat(1, { ctype = ct, initial_element = 7 }) }, { m = gm.mat(2, { ctype = ct, initial_element = 8 }) } }
          local seen = {}
          gm.map_concat(function(item, part)
            seen[#seen + 1] = item
            part:copy_(item.m)
          end, items, mat, { key = function(it) return it.m end, pass_raw = true })
          assert.equal(items[1], seen[1])
          assert.same({ { 7, 8, 8 }, { 1, 1, 1 } }, mat:to_table())
          assert.has_error(function() gm.map_concat(gm.copy_, { gm.mat(7, { ctype = ct }) }, mat) end,
                           "bad argument #3 to 'map_concat' (mats need 7 elements, mat has 6)")
        end)
      end)

      it("map_displacements (MGL's example) stops before leaving the visible part", function()
        local mat = gm.mat(14, { ctype = ct, initial_contents = { -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 } })
        mat:reshape_and_displace_({ 4, 3 }, 1)
        local got = {}
        assert.equal(mat, gm.map_displacements(function(m)
          got[#got + 1] = { m:displacement(), m:to_table() }
        end, mat, 4))
        assert.same({ { 1, { 0, 1, 2, 3 } }, { 5, { 4, 5, 6, 7 } }, { 9, { 8, 9, 10, 11 } } }, got)
        assert.same({ 4, 3 }, mat:dims())
        assert.equal(1, mat:displacement())
        got = {}
        gm.map_displacements(function(m) got[#got + 1] = m:displacement() end, mat, { 2, 2 },
                             { displacement_start = 1, displacement_step = 3 })
        -- windows of 4 at relative 1, 4, 7 (7 + 4 <= 12), not 10
        assert.same({ 2, 5, 8 }, got)
      end)

      it("map_mats_into", function()
        local r = gm.mat({ 2, 2 }, { ctype = ct })
        local a = gm.mat({ 2, 2 }, { ctype = ct, initial_contents = { { 1, 2 }, { 3, 4 } } })
        local b = gm.mat(4, { ctype = ct, initial_contents = { 5, 6, 7, 8 } })
        assert.equal(r, gm.map_mats_into(r, function(x, y) return x * 10 + y end, a, b))
        assert.same({ { 15, 26 }, { 37, 48 } }, r:to_table())
        assert.has_error(function() gm.map_mats_into(r, math.abs, gm.mat(3, { ctype = ct })) end,
                         "bad argument #3 to 'map_mats_into' (size 3 differs from the result's 4)")
      end)
    end)
  end

  it("rejects bad stacks", function()
    local a, b = gm.mat({ 2, 2 }), gm.mat({ 3, 3 })
    assert.has_error(function() gm.stack(1, { a, b }) end,
                     "bad argument #2 to 'stack' (mats[2] has dimension 3 on axis 2, mats[1] has 2)")
    assert.has_error(function() gm.stack(3, { a }) end, "bad argument #1 to 'stack' (axis 3 is out of range 1..2)")
    assert.has_error(function() gm.stack(1, {}) end, "bad argument #2 to 'stack' (mats must not be empty)")
    assert.has_error(function() gm.stack_(1, { a, a }, gm.mat({ 3, 2 })) end,
                     "bad argument #3 to 'stack_' (mats add up to 4 along axis 1, mat has 3)")
    assert.has_error(function() gm.stack_(1, { a, gm.mat({ 2, 2 }, { ctype = "float" }) }, gm.mat({ 4, 2 })) end,
                     "bad argument #2 to 'stack_' (mixed ctypes float (mats[2]) and double (mat))")
    assert.has_error(function() gm.stack_(1, { a, 3 }, gm.mat({ 4, 2 })) end,
                     "bad argument #2 to 'stack_' (mats[2] must be a mat, got number)")
    assert.has_error(function() gm.map_displacements(print, a, 2, { displacement_step = 0 }) end,
                     "bad argument #4 to 'map_displacements' (displacement_step must be positive, got 0)")
  end)
end)
