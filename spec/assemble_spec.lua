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
          assert.equal(items[2], seen[2])
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
    assert.has_error(function() gm.stack(1, { a }, { ctype = "int" }) end,
                     "bad argument #3 to 'stack' (option 'ctype' must be \"float\" or \"double\", got int)")
    local freed = gm.mat({ 2, 2 })
    freed:free()
    assert.has_error(function() gm.stack(1, { a, freed }) end, "bad argument #2 to 'stack' (mats[2] must be a mat, got a freed mat)")
    assert.has_error(function() gm.stack_(1, { freed }, gm.mat({ 2, 2 })) end,
                     "bad argument #2 to 'stack_' (mats[1] must be a mat, got a freed mat)")
    assert.has_error(function() gm.stack_(1, nil, gm.mat({ 2, 2 })) end, "bad argument #2 to 'stack_' (table expected, got nil)")
    assert.has_error(function() gm.stack_(1, setmetatable({}, { __len = function() return -1 end }), gm.mat({ 0, 2 })) end,
                     "bad argument #2 to 'stack_' (bad number of mats (-1))")
    assert.has_error(function() gm.stack_(1, { a }, a) end, "bad argument #2 to 'stack_' (mats[1] overlaps mat in the same storage)")
    assert.has_error(function() gm.stack_(1, { gm.mat(4) }, gm.mat({ 4, 1 })) end,
                     "bad argument #2 to 'stack_' (mats[1] has rank 1, mat has rank 2)")
  end)

  it("rejects bad mappings", function()
    local mat = gm.mat({ 2, 3 })
    local m2 = gm.mat(2)
    assert.has_error(function() gm.map_concat(print, { m2 }, mat, { key = function() return nil end }) end,
                     "bad argument #2 to 'map_concat' (mats[1] (after key) must be a mat, got nil)")
    assert.has_error(function() gm.map_concat(print, { 5 }, mat) end,
                     "bad argument #2 to 'map_concat' (mats[1] must be a mat, got number)")
    assert.has_error(function() gm.map_concat(print, { m2 }, mat, { pass_raw = 1 }) end,
                     "bad argument #4 to 'map_concat' (option 'pass_raw' must be a boolean, got number)")
    assert.has_error(function() gm.map_concat(print, { m2 }, mat, { key = 5 }) end,
                     "bad argument #4 to 'map_concat' (function expected, got number)")
    assert.has_error(function() gm.map_concat(nil, { m2 }, mat) end, "bad argument #1 to 'map_concat' (function expected, got nil)")
    assert.has_error(function() gm.map_concat(function() error("boom") end, { m2 }, mat) end, "boom")
    assert.same({ 2, 3 }, mat:dims()) -- restored after fn's error
    assert.equal(0, mat:displacement())
    assert.has_error(function() gm.map_displacements(print, mat, { 2, "x" }) end,
                     "bad argument #3 to 'map_displacements' (dimension 2 must be an integer, got string)")
    assert.has_error(function() gm.map_displacements(print, mat, 2, { displacement_start = -1 }) end,
                     "bad argument #4 to 'map_displacements' (displacement_start must be non-negative, got -1)")
    assert.has_error(function() gm.map_mats_into(mat, function() end) end,
                     "bad argument #2 to 'map_mats_into' (fn returned nil for element 1, number expected)")
    assert.has_error(function() gm.map_mats_into(mat, math.abs, nil) end,
                     "bad argument #3 to 'map_mats_into' (gpumat.mat expected, got nil)")
  end)

  it("map_displacements with huge start or step calls fn at most once and never overflows", function()
    local m = gm.mat(14)
    local n = 0
    gm.map_displacements(function() n = n + 1 end, m, 2, { displacement_start = math.maxinteger })
    assert.equal(0, n)
    gm.map_displacements(function() n = n + 1 end, m, 2, { displacement_step = math.maxinteger })
    assert.equal(1, n)
    gm.map_displacements(function() n = n + 1 end, m, 20)
    assert.equal(1, n)
  end)
end)
