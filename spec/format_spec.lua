-- gm.format_mat / m:show: exact text for each layout and number format,
-- summarizing, options and errors; formatting never creates a facet or
-- changes up-to-date state.
local gm = require "gpumat"

local function seq(dims, f)
  local m = gm.mat(dims)
  local t = {}
  local n = 1
  for _, d in ipairs(type(dims) == "table" and dims or { dims }) do n = n * d end
  for i = 1, n do t[i] = f and f(i) or i end
  m:replace_(t)
  return m
end

local function lines(...) return table.concat({ ... }, "\n") end

describe("gm.format_mat", function()
  it("shows a rank-2 mat as aligned columns under a header", function()
    local m = gm.mat({ 2, 3 }, { initial_contents = { { 1, 20, 3 }, { -4, 5, 600 } } })
    assert.are.equal(lines("#<MAT 2x3 double>",
      "  1   20    3",
      " -4    5  600"), gm.format_mat(m))
  end)

  it("uses NumPy's number formats: fixed with the fewest decimals, nan/inf", function()
    local m = gm.mat({ 3, 2 }, { initial_contents = { { 1.5, -2.25 }, { 3, 0 / 0 }, { 1 / 0, -1 / 0 } } })
    assert.are.equal(lines("#<MAT 3x2 double>",
      " 1.50  -2.25",
      " 3.00    nan",
      "  inf   -inf"), gm.format_mat(m))
    local p = gm.mat(2, { initial_contents = { 1 / 3, 2 / 3 } })
    assert.are.equal(lines("#<MAT 2 double>", "0.3333  0.6667"), gm.format_mat(p))
    assert.are.equal(lines("#<MAT 2 double>", "0.33  0.67"), gm.format_mat(p, { precision = 2 }))
    local f = gm.mat(2, { ctype = "float", initial_contents = { 0.1, 0.5 } })
    assert.are.equal(lines("#<MAT 2 float>", "0.1  0.5"), gm.format_mat(f))
  end)

  it("switches to scientific notation for large, tiny or widely spread values", function()
    local big = gm.mat(2, { initial_contents = { 1.5e9 + 0.5, 2.5 } })
    assert.are.equal(lines("#<MAT 2 double>", "1.5e+09  2.5e+00"), gm.format_mat(big))
    -- all integers stay integers, however large
    local ints = gm.mat(2, { initial_contents = { 1.5e9, 2 } })
    assert.are.equal(lines("#<MAT 2 double>", "1500000000           2"), gm.format_mat(ints))
    local tiny = gm.mat(2, { initial_contents = { 1.25e-5, 0.5 } })
    assert.are.equal(lines("#<MAT 2 double>", "1.25e-05  5.00e-01"), gm.format_mat(tiny))
  end)

  it("summarizes long axes with ... like NumPy", function()
    local m = seq({ 100, 100 })
    assert.are.equal(lines("#<MAT 100x100 double>",
      "    1      2      3    ...     98     99    100",
      "  101    102    103    ...    198    199    200",
      "  ...    ...    ...    ...    ...    ...    ...",
      " 9801   9802   9803    ...   9898   9899   9900",
      " 9901   9902   9903    ...   9998   9999  10000"), gm.format_mat(m, { max_rows = 4, max_cols = 6 }))
    local v = seq(30)
    assert.are.equal(lines("#<MAT 30 double>",
      "  1    2    3  ...   29   30"), gm.format_mat(v, { max_cols = 5 }))
    -- defaults: 20 rows, 10 columns
    local d = gm.format_mat(seq({ 30, 30 }))
    local n = 0
    for _ in d:gmatch("\n") do n = n + 1 end
    assert.are.equal(21, n) -- header + 20 rows + the ... row
  end)

  it("shows rank 3 as a sequence of labelled 2-d slices, summarized", function()
    local m = seq({ 2, 2, 2 })
    assert.are.equal(lines("#<MAT 2x2x2 double>",
      "[1, :, :]",
      "  1    2",
      "  3    4",
      "",
      "[2, :, :]",
      "  5    6",
      "  7    8"), gm.format_mat(m))
    local big = seq({ 5, 1, 2 })
    assert.are.equal(lines("#<MAT 5x1x2 double>",
      "[1, :, :]",
      "  1    2",
      "...",
      "",
      "[5, :, :]",
      "  9   10"), gm.format_mat(big, { max_slices = 2 }))
  end)

  it("handles rank 0, rank 4, empty and uninitialised mats", function()
    assert.are.equal(lines("#<MAT scalar double>", "7"), gm.format_mat(gm.mat({}, { initial_element = 7 })))
    local r4 = seq({ 1, 2, 1, 1 })
    assert.are.equal(lines("#<MAT 1x2x1x1 double>",
      "[1, 1, :, :]", "  1", "", "[1, 2, :, :]", "  2"), gm.format_mat(r4))
    assert.are.equal(lines("#<MAT 0x3 double>", "(empty)"), gm.format_mat(gm.mat({ 0, 3 })))
    assert.are.equal(lines("#<MAT 3 double>", "uninitialised"),
      gm.format_mat(gm.mat(3, { initial_element = false })))
  end)

  it("shows only the visible part of a displaced view", function()
    local whole = gm.mat(6, { initial_contents = { 9, 1, 2, 3, 4, 9 } })
    local v = gm.mat({ 2, 2 }, { displaced_to = whole, displacement = 1 })
    assert.are.equal(lines("#<MAT 2x2 double>", "  1    2", "  3    4"), gm.format_mat(v))
  end)

  it("never creates facets or changes up-to-date state; tostring keeps its form", function()
    local m = gm.mat({ 2, 2 }, { initial_element = 3 })
    assert.are.equal(lines("#<MAT 2x2 double>", "  3    3", "  3    3"), gm.format_mat(m))
    assert.are.equal("-", m:facets())
    local w = gm.mat(2, { initial_contents = { 1, 2 } })
    if gm.use_cuda_p(w) then
      w:scal_(2) -- on the device: the host facet goes stale
      local before = w:facets()
      assert.are.equal(lines("#<MAT 2 double>", "  2    4"), gm.format_mat(w))
      assert.are.equal(before, w:facets())
    end
    assert.are.equal("#<MAT 2x2 double - {{3, 3}, {3, 3}}>", tostring(m))
  end)

  it("m:show prints the text and returns nothing", function()
    local printed
    local old = print
    _G.print = function(s) printed = s end
    local ok, n = pcall(function() return select("#", seq(2):show({ precision = 1 })) end)
    _G.print = old
    assert.is_true(ok, n)
    assert.are.equal(0, n)
    assert.are.equal(lines("#<MAT 2 double>", "  1    2"), printed)
  end)

  it("rejects bad arguments with clear errors", function()
    local m = seq(2)
    local function err(...) local ok, e = pcall(gm.format_mat, ...); assert.is_false(ok); return e end
    assert.are.equal("bad argument #1 to 'format_mat' (gpumat.mat expected, got number)", err(3))
    assert.are.equal("bad argument #2 to 'format_mat' (unknown option 'rows')", err(m, { rows = 2 }))
    assert.are.equal("bad argument #2 to 'format_mat' (option 'max_rows' must be at least 1)", err(m, { max_rows = 0 }))
    assert.are.equal("bad argument #2 to 'format_mat' (option 'precision' must be between 0 and 17)",
      err(m, { precision = 18 }))
    assert.are.equal("bad argument #2 to 'format_mat' (option 'max_cols' must be an integer, got string)",
      err(m, { max_cols = "3" }))
    assert.are.equal("bad argument #2 to 'format_mat' (table expected, got number)", err(m, 5))
    local f = seq(2)
    f:free()
    assert.are.equal("bad argument #1 to 'format_mat' (attempt to use a freed mat)", err(f))
  end)
end)
