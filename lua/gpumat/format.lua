-- gm.format_mat(m, opts) and m:show(opts): a mat as aligned rows and
-- columns, large ones summarized with "..." as NumPy does.  The elements
-- come from core._peek_grid (src/lua/l_peek.c), which reads them
-- through the same path as tostring (core/peek.h): formatting never
-- creates a facet or changes up-to-date bits.
local argcheck = require "gpumat.argcheck"

local defaults = { max_rows = 20, max_cols = 10, max_slices = 6, precision = 4 }

local function check_opts(opts, fname)
  local o = {}
  for k, v in pairs(defaults) do o[k] = v end
  if opts == nil then return o end
  if type(opts) ~= "table" then argcheck.argerror(2, fname, "table expected, got %s", type(opts)) end
  for k, v in pairs(opts) do
    if defaults[k] == nil then argcheck.argerror(2, fname, "unknown option '%s'", tostring(k)) end
    local lo = k == "precision" and 0 or 1
    if math.type(v) ~= "integer" and not (type(v) == "number" and v == math.floor(v) and v == v) then
      argcheck.argerror(2, fname, "option '%s' must be an integer, got %s", k, type(v))
    end
    v = math.tointeger(v)
    if not v or v < lo or (k == "precision" and v > 17) then
      argcheck.argerror(2, fname, "option '%s' must be %s", k,
        k == "precision" and "between 0 and 17" or "at least 1")
    end
    o[k] = v
  end
  return o
end

local function nonfinite(x)
  if x ~= x then return "nan" end
  if x == math.huge then return "inf" end
  if x == -math.huge then return "-inf" end
end

-- Decimals needed to show x with at most p of them ("%.4f" of 0.5 needs 1).
local function decimals(s)
  local frac = s:match("%.(%d*)") or ""
  frac = frac:gsub("0+$", "")
  return #frac
end

-- One formatter for all shown values, NumPy's rules: integers as integers;
-- scientific notation when the largest magnitude is >= 1e8, the smallest
-- nonzero one < 1e-4, or their ratio > 1e3; else fixed with the fewest
-- decimals (at most `precision`, at least 1) that show every value.
local function formatter(values, precision)
  local all_int, maxabs, minabs = true, 0, math.huge
  for _, x in ipairs(values) do
    if not nonfinite(x) then
      local a = math.abs(x)
      if x ~= math.floor(x) or a >= 1e16 then all_int = false end
      if a > maxabs then maxabs = a end
      if a > 0 and a < minabs then minabs = a end
    end
  end
  if all_int then
    return function(x) return nonfinite(x) or string.format("%.0f", x) end
  end
  local sci = maxabs >= 1e8 or minabs < 1e-4 or maxabs / minabs > 1e3
  local conv = sci and "e" or "f"
  local d = 0
  for _, x in ipairs(values) do
    if not nonfinite(x) then
      local s = string.format("%." .. precision .. conv, x)
      d = math.max(d, decimals(sci and s:match("^[^e]*") or s))
    end
  end
  if not sci and d == 0 then d = 1 end
  local fmt = "%." .. d .. conv
  return function(x) return nonfinite(x) or string.format(fmt, x) end
end

local function shape_text(dims)
  if #dims == 0 then return "scalar" end
  local t = {}
  for i, d in ipairs(dims) do t[i] = tostring(d) end
  return table.concat(t, "x")
end

return function(gm, core, methods)
  local mat_mt = getmetatable(core.mat(0))

  function gm.format_mat(m, opts)
    local fname = "format_mat"
    if getmetatable(m) ~= mat_mt then
      argcheck.argerror(1, fname, "gpumat.mat expected, got %s", type(m))
    elseif core.is_freed(m) then
      argcheck.argerror(1, fname, "attempt to use a freed mat")
    end
    local o = check_opts(opts, fname)
    local values, kept, dims, ctype = core._peek_grid(m, o.max_slices, o.max_rows, o.max_cols)
    local rank = #dims
    local out = { string.format("#<MAT %s %s>", shape_text(dims), ctype) }
    local empty = false
    for _, d in ipairs(dims) do if d == 0 then empty = true end end
    if empty then
      out[#out + 1] = "(empty)"
      return table.concat(out, "\n")
    end
    if not values then
      out[#out + 1] = "uninitialised"
      return table.concat(out, "\n")
    end
    local fmt = formatter(values, o.precision)
    local texts, width = {}, 3 -- "..." fits
    for i, x in ipairs(values) do
      texts[i] = fmt(x)
      if #texts[i] > width then width = #texts[i] end
    end
    if rank == 0 then
      out[#out + 1] = texts[1]
      return table.concat(out, "\n")
    end
    local cols = kept[rank]
    local rows = rank >= 2 and kept[rank - 1] or { 1 }
    local n_cols = 0
    for _, j in ipairs(cols) do if j ~= 0 then n_cols = n_cols + 1 end end
    local n_rows = 0
    for _, i in ipairs(rows) do if i ~= 0 then n_rows = n_rows + 1 end end
    local pad = "%" .. width .. "s"
    local function slice(base) -- base: 0-based offset of the slice in values
      local r = 0
      for _, i in ipairs(rows) do
        local line = {}
        if i == 0 then
          for k = 1, #cols do line[k] = pad:format("...") end
        else
          local c = 0
          for k, j in ipairs(cols) do
            if j == 0 then
              line[k] = pad:format("...")
            else
              line[k] = pad:format(texts[base + r * n_cols + c + 1])
              c = c + 1
            end
          end
          r = r + 1
        end
        out[#out + 1] = table.concat(line, "  ")
      end
    end
    if rank <= 2 then
      slice(0)
      return table.concat(out, "\n")
    end
    -- rank >= 3: the 2-d slices in row-major order of the leading axes
    local lead = {}
    for a = 1, rank - 2 do lead[a] = kept[a] end
    local pos = {}
    for a = 1, rank - 2 do pos[a] = 1 end
    local slice_size, k = n_rows * n_cols, 0
    while true do
      local label, gap = {}, false
      for a = 1, rank - 2 do
        local i = lead[a][pos[a]]
        if i == 0 then gap = true end
        label[a] = i == 0 and "..." or tostring(i)
      end
      if gap then
        if not out[#out]:match("^%.%.%.$") then out[#out + 1] = "..." end
      else
        if k > 0 then out[#out + 1] = "" end
        out[#out + 1] = "[" .. table.concat(label, ", ") .. ", :, :]"
        slice(k * slice_size)
        k = k + 1
      end
      local a = rank - 2
      while a >= 1 do
        pos[a] = pos[a] + 1
        if pos[a] <= #lead[a] then break end
        pos[a] = 1
        a = a - 1
      end
      if a < 1 then break end
    end
    return table.concat(out, "\n")
  end

  -- m:show(opts) prints gm.format_mat(m, opts); returns nothing, so the
  -- REPL does not print the mat a second time.
  function methods.show(m, opts)
    print(gm.format_mat(m, opts))
  end
end
