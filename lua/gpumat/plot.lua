-- gm.plot and gm.imshow: plots without leaving Lua, as Torch7's gnuplot
-- package gave them.  Curves go through gnuplot (a PNG file, or text
-- drawn in the terminal with gnuplot's dumb terminal); gm.imshow draws a
-- matrix as a PNG heat map through gnuplot, or in the terminal as shaded
-- characters drawn here (gnuplot's dumb terminal cannot show images).
-- gnuplot runs as a separate program on files written to the temporary
-- directory, so nothing of it is linked; gm.gnuplot names the program.
local argcheck = require "gpumat.argcheck"

-- A series of numbers from a 1-d mat or a Lua list; a 2-d mat (n x k)
-- gives k series (its columns).
local function series_of(v, n, fname)
  local list = {}
  if type(v) == "table" then
    for i = 1, #v do
      if type(v[i]) ~= "number" then argcheck.argerror(n, fname, "element %d is a %s, not a number", i, type(v[i])) end
      list[i] = v[i]
    end
    return { list }
  end
  if type(v) ~= "userdata" or not pcall(function() return v:dims() end) then
    argcheck.argerror(n, fname, "mat or list of numbers expected, got %s", type(v))
  end
  local dims = v:dims()
  if #dims == 1 then return { v:to_table() } end
  if #dims ~= 2 then argcheck.argerror(n, fname, "1-d or 2-d mat expected, got %d dimensions", #dims) end
  local rows, out = v:to_table(), {}
  for j = 1, dims[2] do
    local col = {}
    for i = 1, dims[1] do col[i] = rows[i][j] end
    out[j] = col
  end
  return out
end

-- A number as gnuplot reads it: NaN and infinities are undefined points
-- (a gap in a curve, a blank cell of an image).
local function num(v)
  if v ~= v or v == math.huge or v == -math.huge then return "NaN" end
  return string.format("%.17g", v)
end

-- A gnuplot string literal: single quotes, '' stands for one.
local function quote(s) return "'" .. tostring(s):gsub("'", "''") .. "'" end

local known = { file = true, title = true, xlabel = true, ylabel = true, logscale = true,
  with = true, labels = true, size = true, text = true }
local function check_opts(opts, n, fname)
  if opts == nil then return {} end
  if type(opts) ~= "table" then argcheck.argerror(n, fname, "options table expected, got %s", type(opts)) end
  for k in pairs(opts) do
    if not known[k] then argcheck.argerror(n, fname, "unknown option '%s'", tostring(k)) end
  end
  return opts
end

-- Runs gnuplot on a script; -> its standard output.
local function run_gnuplot(gm, script, fname)
  local exe = rawget(gm, "gnuplot") or "gnuplot"
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(script)
  f:close()
  local p = io.popen(("%s %s 2>&1"):format(exe, path), "r")
  local out = p:read("a")
  local ok, _, code = p:close()
  os.remove(path)
  if not ok then
    if code == 127 then
      argcheck.error("%s: gnuplot is not installed or gm.gnuplot ('%s') is not a program (apt-get install gnuplot-nox)", fname, exe)
    end
    argcheck.error("%s: gnuplot failed: %s", fname, out)
  end
  return out
end

-- The terminal line of a script: a PNG file or text.
local function terminal(opts, w, h)
  local size = opts.size or {}
  if opts.file then
    return ("set terminal png size %d,%d\nset output %s\n"):format(size[1] or w, size[2] or h, quote(opts.file))
  end
  return ("set terminal dumb size %d,%d\n"):format(size[1] or 79, size[2] or 24)
end

-- Shown or returned: a file's name, the text of a dumb plot (opts.text),
-- or the text printed (the REPL's and a script's usual case).
local function finish(opts, out)
  if opts.file then return opts.file end
  if opts.text then return out end
  io.write(out)
end

return function(gm)
  -- gm.plot(y, opts) / gm.plot(x, y, opts)
  function gm.plot(a, b, c)
    -- b is the options when it is a plain table without list elements
    local x, y, opts, on = nil, a, b, 2
    if b ~= nil and not (type(b) == "table" and b[1] == nil and getmetatable(b) == nil) then
      x, y, opts, on = a, b, c, 3
    elseif c ~= nil then
      argcheck.argerror(3, "plot", "no value expected")
    end
    opts = check_opts(opts, on, "plot")
    local ys = series_of(y, x and 2 or 1, "plot")
    local xs = x and series_of(x, 1, "plot")[1]
    local n = #ys[1]
    if n == 0 then argcheck.argerror(x and 2 or 1, "plot", "nothing to plot (no points)") end
    if xs and #xs ~= n then argcheck.argerror(1, "plot", "x has %d points, y has %d", #xs, n) end
    local data = os.tmpname()
    local f = assert(io.open(data, "w"))
    for i = 1, n do
      f:write(num(xs and xs[i] or i))
      for k = 1, #ys do f:write(" ", num(ys[k][i])) end
      f:write("\n")
    end
    f:close()
    local s = { terminal(opts, 800, 500) }
    if opts.title then s[#s + 1] = "set title " .. quote(opts.title) .. "\n" end
    if opts.xlabel then s[#s + 1] = "set xlabel " .. quote(opts.xlabel) .. "\n" end
    if opts.ylabel then s[#s + 1] = "set ylabel " .. quote(opts.ylabel) .. "\n" end
    if opts.logscale then s[#s + 1] = "set logscale " .. tostring(opts.logscale):gsub("[^xy]", "") .. "\n" end
    local parts = {}
    for k = 1, #ys do
      local label = opts.labels and opts.labels[k]
      parts[k] = ("%s using 1:%d with %s %s"):format(k == 1 and quote(data) or "''", k + 1,
        opts.with or "lines", label and ("title " .. quote(label)) or "notitle")
    end
    s[#s + 1] = "plot " .. table.concat(parts, ", ") .. "\n"
    local ok, out = pcall(run_gnuplot, gm, table.concat(s), "plot")
    os.remove(data)
    if not ok then error(out, 0) end
    return finish(opts, out)
  end

  -- The terminal form of imshow: one character per element, darker for
  -- larger values (min -> ' ', max -> '@'), NaN as '?'.
  local shades = " .:-=+*#%@"
  local function shade_text(rows)
    local lo, hi = math.huge, -math.huge
    for _, r in ipairs(rows) do
      for _, v in ipairs(r) do
        if v == v then lo, hi = math.min(lo, v), math.max(hi, v) end
      end
    end
    local lines = {}
    for i, r in ipairs(rows) do
      local chars = {}
      for j, v in ipairs(r) do
        local k = v ~= v and 0 or (hi > lo and math.floor((v - lo) / (hi - lo) * (#shades - 1) + 0.5) or 0)
        chars[j] = v ~= v and "?" or shades:sub(k + 1, k + 1)
      end
      lines[i] = table.concat(chars)
    end
    return table.concat(lines, "\n") .. "\n"
  end

  -- gm.imshow(m, opts): m a 2-d mat (or a list of rows)
  function gm.imshow(m, opts)
    opts = check_opts(opts, 2, "imshow")
    local rows
    if type(m) == "table" then
      rows = m
      for i, r in ipairs(rows) do
        if type(r) ~= "table" or #r ~= #rows[1] then
          argcheck.argerror(1, "imshow", "row %d is not a list of %d numbers", i, #rows[1] or 0)
        end
        for j, v in ipairs(r) do
          if type(v) ~= "number" then argcheck.argerror(1, "imshow", "element {%d, %d} is a %s, not a number", i, j, type(v)) end
        end
      end
    else
      local cols = series_of(m, 1, "imshow")
      if #m:dims() ~= 2 then argcheck.argerror(1, "imshow", "2-d mat expected, got %d dimensions", #m:dims()) end
      rows = m:to_table()
      if #cols == 0 then rows = {} end
    end
    if #rows == 0 or #rows[1] == 0 then argcheck.argerror(1, "imshow", "nothing to show (the mat is empty)") end
    if not opts.file then return finish(opts, shade_text(rows)) end
    local s = { terminal(opts, 600, 600), "set view map\nunset key\nset yrange [] reverse\n" }
    if opts.title then s[#s + 1] = "set title " .. quote(opts.title) .. "\n" end
    s[#s + 1] = "plot '-' matrix with image\n"
    for _, r in ipairs(rows) do
      local cells = {}
      for j, v in ipairs(r) do cells[j] = num(v) end
      s[#s + 1] = table.concat(cells, " ") .. "\n"
    end
    s[#s + 1] = "e\n"
    run_gnuplot(gm, table.concat(s), "imshow")
    return opts.file
  end
end
