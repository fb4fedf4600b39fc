-- Caching (MGL-MAT §10): with_thread_cached_mat(s), with_ones.
--
-- One cache per Lua state (a Lua state runs one OS thread at a time; its
-- coroutines share the cache), keyed by place (any value; "scratch" by
-- default) and by (ctype, initial_element).  Values are weak, so cached
-- mats can be collected.  A mat is taken out of the cache while fn runs,
-- so nested or recursive uses of the same place get different mats; it
-- is put back when fn returns normally (after an error the next use just
-- makes a new one).  Reuse: when dims fit the cached mat's storage at the
-- requested displacement, the same mat is reshaped and displaced, its
-- contents being whatever was left in it (scratch semantics, as in MGL);
-- initial_contents, when given, is written on every use.
return function(gm, core, methods)
  local mat_mt = getmetatable(core.mat(0))
  local caches = setmetatable({}, { __mode = "k" }) -- place -> key -> mat

  local function argerror(n, fname, fmt, ...)
    error(string.format("bad argument #%d to '%s' (%s)", n, fname, string.format(fmt, ...)), 3)
  end

  local function check_callable(f, n, fname)
    local mt = getmetatable(f)
    if type(f) ~= "function" and not (mt and mt.__call) then
      argerror(n, fname, "function expected, got %s", type(f))
    end
  end

  local allowed = {
    place = true, ctype = true, displacement = true, max_size = true,
    initial_element = true, initial_contents = true,
  }

  local function check_opts(opts, n, fname, keys)
    if opts == nil then return {} end
    if type(opts) ~= "table" then argerror(n, fname, "options table expected, got %s", type(opts)) end
    for k in pairs(opts) do
      if not keys[k] then argerror(n, fname, "unknown option '%s'", tostring(k)) end
    end
    return opts
  end

  local function dims_size(dims, n, fname)
    if math.type(dims) == "integer" then dims = { dims } end
    if type(dims) ~= "table" then argerror(n, fname, "dimensions must be an integer or a list, got %s", type(dims)) end
    local size = 1
    for i, d in ipairs(dims) do
      if math.type(d) ~= "integer" or d < 0 then
        argerror(n, fname, "dimension %d must be a non-negative integer, got %s", i, tostring(d))
      end
      size = size * d
    end
    return dims, size
  end

  local function subcache(place)
    local c = caches[place]
    if not c then
      c = setmetatable({}, { __mode = "v" })
      caches[place] = c
    end
    return c
  end

  local function put_back(c, key, m, ...)
    if not core.is_freed(m) then c[key] = m end
    return ...
  end

  local function cached_mat(fname, dims, opts, fn)
    opts = check_opts(opts, 2, fname, allowed)
    local size
    dims, size = dims_size(dims, 1, fname)
    check_callable(fn, 3, fname)
    local ctype = opts.ctype or gm.default_ctype
    if ctype ~= "float" and ctype ~= "double" then
      argerror(2, fname, "option 'ctype' must be \"float\" or \"double\", got %s", tostring(ctype))
    end
    local d = opts.displacement or 0
    if math.type(d) ~= "integer" or d < 0 then
      argerror(2, fname, "option 'displacement' must be a non-negative integer, got %s", tostring(d))
    end
    local ie = opts.initial_element
    if ie == nil then ie = 0 end
    if type(ie) ~= "number" and ie ~= false then
      argerror(2, fname, "option 'initial_element' must be a number or false, got %s", type(ie))
    end
    local place = opts.place
    if place == nil then place = "scratch" end
    local key = ctype .. "/" .. tostring(ie)
    local c = subcache(place)
    local m = c[key]
    c[key] = nil -- in use: nested uses of this place get another mat
    if m ~= nil and not core.is_freed(m) and d + size <= m:max_size() then
      core.reshape_and_displace_(m, dims, d)
    else
      m = gm.mat(dims, { ctype = ctype, displacement = d, max_size = opts.max_size, initial_element = ie })
    end
    if opts.initial_contents ~= nil then m:replace_(opts.initial_contents) end
    return put_back(c, key, m, fn(m))
  end

  -- gm.with_thread_cached_mat(dims, opts, fn) -> fn's results
  function gm.with_thread_cached_mat(dims, opts, fn)
    return cached_mat("with_thread_cached_mat", dims, opts, fn)
  end

  -- gm.with_thread_cached_mats({{dims, opts}, ...}, fn): fn(m1, m2, ...)
  function gm.with_thread_cached_mats(specs, fn)
    local fname = "with_thread_cached_mats"
    if type(specs) ~= "table" then argerror(1, fname, "table expected, got %s", type(specs)) end
    for i, s in ipairs(specs) do
      if type(s) ~= "table" then argerror(1, fname, "specs[%d] must be a {dims, opts} table, got %s", i, type(s)) end
    end
    check_callable(fn, 2, fname)
    local n, ms = #specs, {}
    local function nest(i)
      if i > n then return fn(table.unpack(ms, 1, n)) end
      return cached_mat(fname, specs[i][1], specs[i][2], function(m)
        ms[i] = m
        return nest(i + 1)
      end)
    end
    return nest(1)
  end

  -- gm.with_ones(dims, {ctype, place = "ones"}, fn): fn(m) with every
  -- element of m equal to 1 (m must not be written)
  function gm.with_ones(dims, opts, fn)
    local fname = "with_ones"
    opts = check_opts(opts, 2, fname, { ctype = true, place = true })
    local place = opts.place
    if place == nil then place = "ones" end
    return cached_mat(fname, dims, { ctype = opts.ctype, place = place, initial_element = 1 }, fn)
  end
end
