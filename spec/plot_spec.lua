-- gm.plot and gm.imshow (plots without leaving Lua, as Torch7's gnuplot package):
-- curves through gnuplot to a PNG or as text, images as a PNG heat map or
-- as shaded characters; mats are read where they live; bad input raises
-- naming the function and argument; a missing gnuplot is a clear error.
local gm = require "gpumat"

local has_gnuplot = os.execute("command -v gnuplot >/dev/null 2>&1")

-- Width and height from a PNG's IHDR chunk (bytes 17..24, big-endian).
local function png_size(path)
  local f = assert(io.open(path, "rb"))
  local head = f:read(24)
  f:close()
  assert.are.equal("\137PNG\r\n\26\n", head:sub(1, 8))
  return string.unpack(">I4>I4", head, 17)
end

describe("gm.plot and gm.imshow", function()
  it("imshow draws a mat as shaded characters, min blank, max '@', NaN '?'", function()
    local m = gm.mat({ 3, 4 }, { initial_contents = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 9, 10, 11, 0 / 0 } } })
    -- shade k = floor((v - 1) / 10 * 9 + 0.5) of " .:-=+*#%@"
    assert.are.equal(" .:-\n=++*\n#%@?\n", gm.imshow(m, { text = true }))
    -- a list of rows too; a constant image is all blank
    assert.are.equal("  \n  \n", gm.imshow({ { 5, 5 }, { 5, 5 } }, { text = true }))
  end)

  it("plot draws text with gnuplot's dumb terminal", function()
    if not has_gnuplot then return pending("gnuplot is not installed") end
    local x = gm.linspace(0, 2, 3)
    local out = gm.plot(x, x * 10, { text = true, title = "tens", size = { 50, 12 } })
    local lines = {}
    for l in out:gmatch("[^\n]*") do lines[#lines + 1] = l end
    assert.truthy(out:find("tens", 1, true), out)
    assert.truthy(out:find("\n%s*20 %+%-%-%-"), out)  -- the top tick: y max 20
    assert.truthy(out:find("\n%s+0 %+%-%-%-"), out)   -- the bottom one: y min 0
    assert.truthy(#lines >= 11 and #lines <= 13, out)  -- 12 rows (size)
    -- two series from a 2-d mat's columns, with their labels
    local y = gm.mat({ 3, 2 }, { initial_contents = { { 1, 3 }, { 2, 2 }, { 3, 1 } } })
    out = gm.plot(y, { text = true, labels = { "up", "down" } })
    assert.truthy(out:find("up", 1, true) and out:find("down", 1, true), out)
  end)

  it("plot and imshow write PNG files of the size asked for", function()
    if not has_gnuplot then return pending("gnuplot is not installed") end
    local png = os.tmpname() .. ".png"
    assert.are.equal(png, gm.plot({ 1, 4, 9, 16 }, { file = png, size = { 320, 200 }, title = "it's", logscale = "y" }))
    local w, h = png_size(png)
    assert.are.same({ 320, 200 }, { w, h })
    assert.are.equal(png, gm.imshow(gm.range(1, 6):view(2, 3), { file = png, size = { 240, 160 } }))
    w, h = png_size(png)
    assert.are.same({ 240, 160 }, { w, h })
    os.remove(png)
  end)

  it("reads mats where they live (inside with_cuda)", function()
    if not has_gnuplot then return pending("gnuplot is not installed") end
    local host = gm.plot({ 1, 2, 3 }, { 3, 1, 2 }, { text = true })
    local dev = gm.with_cuda({}, function()
      local x = gm.array_to_mat({ 1, 2, 3 })
      local y = gm.array_to_mat({ 3, 1, 2 })
      return gm.plot(x, y, { text = true })
    end)
    assert.are.equal(host, dev)
  end)

  it("raises on bad input, naming the function and argument", function()
    assert.has_error(function() gm.plot({ 1, 2 }, { 1, 2, 3 }) end, "bad argument #1 to 'plot' (x has 2 points, y has 3)")
    assert.has_error(function() gm.plot({ 1, "a" }) end, "bad argument #1 to 'plot' (element 2 is a string, not a number)")
    assert.has_error(function() gm.plot({ 1, 2 }, { colour = 1 }) end, "bad argument #2 to 'plot' (unknown option 'colour')")
    assert.has_error(function() gm.plot({}) end, "bad argument #1 to 'plot' (nothing to plot (no points))")
    assert.has_error(function() gm.plot(42) end, "bad argument #1 to 'plot' (mat or list of numbers expected, got number)")
    assert.has_error(function() gm.imshow(gm.mat(3)) end, "bad argument #1 to 'imshow' (2-d mat expected, got 1 dimensions)")
    assert.has_error(function() gm.imshow({ { 1, 2 }, { 3 } }) end, "bad argument #1 to 'imshow' (row 2 is not a list of 2 numbers)")
    assert.has_error(function() gm.imshow({}) end, "bad argument #1 to 'imshow' (nothing to show (the mat is empty))")
  end)

  it("says so when gnuplot is missing", function()
    local saved = rawget(gm, "gnuplot")
    gm.gnuplot = "/nonexistent/gnuplot"
    local ok, err = pcall(gm.plot, { 1, 2 })
    gm.gnuplot = saved
    assert.is_false(ok)
    assert.are.equal("plot: gnuplot is not installed or gm.gnuplot ('/nonexistent/gnuplot') is not a program "
      .. "(apt-get install gnuplot-nox)", err)
  end)
end)
