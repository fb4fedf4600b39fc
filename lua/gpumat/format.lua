-- gm.format_mat(m, opts) and m:show(opts): a mat as aligned rows and
-- columns, large ones summarized with "..." as NumPy does.  The text is
-- built by core._format_grid (src/core/io/format_grid.c), which reads the
-- elements through the same path as tostring (core/io/peek.h): formatting
-- never creates a facet or changes up-to-date bits.  Here: the options.
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
    return core._format_grid(m, o.max_slices, o.max_rows, o.max_cols, o.precision)
  end

  -- m:show(opts) prints gm.format_mat(m, opts); returns nothing, so the
  -- REPL does not print the mat a second time.
  function methods.show(m, opts)
    print(gm.format_mat(m, opts))
  end
end
