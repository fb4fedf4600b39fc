-- A new user's first-day traps, as a Torch7/NumPy user meets them:
-- a mat compared with < > <= >= names the elementwise methods instead of
-- Lua's "attempt to compare two gpumat.mat values"; m[mask] selects and m[true]
-- raises at once instead of returning nil (B2); gm.array_to_mat({M, M})
-- stacks mats on a new leading axis as np.array([a, b]) does (B6).
local gm = require "gpumat"

describe("first-day traps", function()
  local M = gm.range(1, 6):view(2, 3)

  it("comparing a mat with < > <= >= names m:gt and its kin", function()
    for _, f in ipairs({
      function() return M < M end, function() return M > 0 end,
      function() return 0 <= M end, function() return M >= M end,
    }) do
      local ok, err = pcall(f)
      assert.is_false(ok)
      assert.matches("comparisons of mats are elementwise methods, m:gt%(x%)", err)
      assert.matches("m:le%(x%)", err)
    end
  end)

  it("a bool mask as a key selects; a boolean key raises, naming what works instead (B2)", function()
    local mask = gm.zeros({ 2, 3 }, { dtype = "bool" })
    for i = 4, 6 do mask[i] = true end
    assert.are.same({ 4, 5, 6 }, M[mask]:to_table())
    assert.has_error(function() return M[true] end,
      "bad argument #2 to 'mref' (cannot index a mat with a boolean (use an index, {i, j, ...}, an index mat or a bool mask))")
    -- what still reads as before: nil key, elements, methods, out of range
    assert.is_nil(M[nil])
    assert.are.equal(2, M[2])
    assert.is_nil(M[7])
    assert.are.equal("function", type(M.dims))
    assert.are.same({ 0, 0, 0, 4, 5, 6 }, gm.where(M:gt(3), M, 0):reshape(6):to_table())
  end)

  it("array_to_mat stacks mats on a new leading axis (B6)", function()
    local s = gm.array_to_mat({ M, M * 10 })
    assert.are.same({ 2, 2, 3 }, s:dims())
    assert.are.same({ { { 1, 2, 3 }, { 4, 5, 6 } }, { { 10, 20, 30 }, { 40, 50, 60 } } }, s:to_table())
    -- nested lists of mats, and a float ctype
    local v = gm.range(1, 3)
    local t = gm.array_to_mat({ { v, v }, { v, v } }, { ctype = "float" })
    assert.are.same({ 2, 2, 3 }, t:dims())
    assert.are.equal("float", t:ctype())
    assert.are.equal(24, t:sum())
    -- numbers still make the shape from the nesting
    assert.are.same({ 2, 2 }, gm.array_to_mat({ { 1, 2 }, { 3, 4 } }):dims())
  end)

  it("array_to_mat refuses mats of different dims and mixed leaves with a clear error", function()
    assert.has_error(function() gm.array_to_mat({ M, gm.range(1, 6) }) end,
      "bad argument #1 to 'array_to_mat' (contents are not rectangular (the leaves at depth 2 are not all "
        .. "mats of the first one's dims))")
    assert.has_error(function() gm.array_to_mat({ M, 5 }) end,
      "bad argument #1 to 'array_to_mat' (contents are not rectangular (the leaves at depth 2 are not all "
        .. "mats of the first one's dims))")
    assert.has_error(function() gm.array_to_mat({ 5, M }) end,
      "bad argument #1 to 'array_to_mat' (contents are not rectangular (the leaves at depth 2 are not all "
        .. "mats of the first one's dims))")
  end)

  it("m[{math.mininteger, 1}] is an out-of-range error, not a negated LLONG_MIN (UBSan)", function()
    local ok, err = pcall(function() return M[{ math.mininteger, 1 }] end)
    assert.is_false(ok)
    assert.matches("out of range", err)
    assert.has_error(function() M[{ math.mininteger, 1 }] = 1 end)
    assert.are.equal(6, M[{ -1, -1 }]) -- negatives still count from the end
  end)
end)
