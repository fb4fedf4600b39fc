-- Caching (MGL-MAT §10): with_thread_cached_mat(s), with_ones.
--
-- One cache per Lua state (a Lua state runs one OS thread at a time; its
-- coroutines share the cache), keyed by place (any value; "scratch" by
-- default) and by (ctype, initial_element); with_ones' mats have slots of
-- their own (a written scratch mat is never handed out as ones).  Values
-- are weak, so cached mats can be collected.  A mat is taken out of the
-- cache while fn runs, so nested or recursive uses of the same place get
-- different mats; it is put back when fn returns normally (after an
-- error the next use just makes a new one).  Reuse: when dims fit the
-- cached mat's storage at the requested displacement, the same mat is
-- reshaped and displaced, its contents being whatever was left in it
-- (scratch semantics, as in MGL); initial_contents, when given, is
-- written on every use.
return function(gm, core, methods)
  local mat_mt = getmetatable(core.mat(0))
  local caches = setmetatable({}, { __mode = "k" }) -- place -> key -> mat

  local argcheck = require "gpumat.argcheck"
  local argerror, check_callable = argcheck.argerror, argcheck.check_callable

  -- Calls f(...); a "bad argument #k to 'callee' (reason)" error is raised
  -- again as argument argn[k] of fname (prefix added to the reason), so
  -- errors of gm.mat and replace_ name the caching function.  Other errors
  -- (error objects such as cuda_out_of_memory) pass through unchanged.
  local function renaming(fname, argn, prefix, f, ...)
    local ok, err = pcall(f, ...)
    if ok then return err end
    if type(err) == "string" then
      local k, reason = err:match("bad argument #(%d+) to '[^']*' %((.*)%)$")
      if k and argn[tonumber(k)] then argerror(argn[tonumber(k)], fname, "%s%s", prefix, reason) end
    end
    error(err, 0)
  end

  local allowed = {
    place = true, ctype = true, displacement = true, max_size = true,
    initial_element = true, initial_contents = true,
  }

  local function check_opts(opts, n, fname, keys, prefix)
    prefix = prefix or ""
    if opts == nil then return {} end
    if type(opts) ~= "table" then argerror(n, fname, "%soptions table expected, got %s", prefix, type(opts)) end
    for k in pairs(opts) do
      if not keys[k] then argerror(n, fname, "%sunknown option '%s'", prefix, tostring(k)) end
    end
    return opts
  end

  local function dims_size(dims, n, fname, prefix)
    if math.type(dims) == "integer" then dims = { dims } end
    if type(dims) ~= "table" then
      argerror(n, fname, "%sdimensions must be an integer or a list, got %s", prefix, type(dims))
    end
    local size, list = 1, {}
    for i = 1, #dims do
      local d = dims[i]
      if math.type(d) ~= "integer" or d < 0 then
        argerror(n, fname, "%sdimension %d must be a non-negative integer, got %s", prefix, i, tostring(d))
      end
      if d > 0 and size > math.maxinteger // d then argerror(n, fname, "%sdimensions are too large", prefix) end
      size = size * d
      list[i] = d
    end
    return list, size
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

  -- Checks the options (argument site.opts_arg, messages prefixed with
  -- site.prefix) before anything is taken from the cache; returns what
  -- cached_mat needs.
  local function check_spec(site, dims, opts)
    local fname, oa, prefix = site.fname, site.opts_arg, site.prefix
    opts = check_opts(opts, oa, fname, allowed, prefix)
    local size
    dims, size = dims_size(dims, site.dims_arg, fname, prefix)
    local ctype = opts.ctype or gm.default_ctype
    if ctype ~= "float" and ctype ~= "double" then
      argerror(oa, fname, "%soption 'ctype' must be \"float\" or \"double\", got %s", prefix, tostring(ctype))
    end
    local d = opts.displacement or 0
    if math.type(d) ~= "integer" or d < 0 then
      argerror(oa, fname, "%soption 'displacement' must be a non-negative integer, got %s", prefix, tostring(d))
    end
    local ms = opts.max_size
    if ms ~= nil and (math.type(ms) ~= "integer" or ms < 0 or d > ms or size > ms - d) then
      argerror(oa, fname, "%soption 'max_size' must be an integer of at least displacement + size (%d), got %s",
               prefix, d + size, tostring(ms))
    end
    local ie = opts.initial_element
    if ie == nil then ie = 0 end
    if type(ie) ~= "number" and ie ~= false then
      argerror(oa, fname, "%soption 'initial_element' must be a number or false, got %s", prefix, type(ie))
    end
    local place = opts.place
    if place == nil then place = site.default_place end
    if place ~= place then argerror(oa, fname, "%soption 'place' must not be NaN", prefix) end
    return dims, size, ctype, d, ie, place, opts
  end

  -- site: {fname, dims_arg, opts_arg, prefix, default_place, kind}; kind
  -- separates with_ones' mats from scratch mats that happen to share a
  -- place and initial element (a written scratch mat must never be handed
  -- out as ones).
  local function cached_mat(site, dims, opts, fn)
    local size, ctype, d, ie, place
    dims, size, ctype, d, ie, place, opts = check_spec(site, dims, opts)
    local key = site.kind .. ctype .. "/" .. tostring(ie)
    local c = subcache(place)
    local m = c[key]
    c[key] = nil -- in use: nested uses of this place get another mat
    local fname, argn = site.fname, { site.dims_arg, site.opts_arg }
    if m ~= nil and not core.is_freed(m) and d + size <= m:max_size() then
      core.reshape_and_displace_(m, dims, d)
    else
      m = renaming(fname, argn, site.prefix, gm.mat, dims,
                   { ctype = ctype, displacement = d, max_size = opts.max_size, initial_element = ie })
    end
    if opts.initial_contents ~= nil then
      renaming(fname, { [2] = site.opts_arg }, site.prefix .. "option 'initial_contents': ", m.replace_, m,
               opts.initial_contents)
    end
    return put_back(c, key, m, fn(m))
  end

  -- gm.with_thread_cached_mat(dims, opts, fn) -> fn's results
  local wtcm_site = {
    fname = "with_thread_cached_mat", dims_arg = 1, opts_arg = 2, prefix = "", default_place = "scratch", kind = "",
  }
  function gm.with_thread_cached_mat(dims, opts, fn)
    check_callable(fn, 3, wtcm_site.fname)
    return cached_mat(wtcm_site, dims, opts, fn)
  end

  -- gm.with_thread_cached_mats({{dims, opts}, ...}, fn): fn(m1, m2, ...)
  function gm.with_thread_cached_mats(specs, fn)
    local fname = "with_thread_cached_mats"
    if type(specs) ~= "table" then argerror(1, fname, "table expected, got %s", type(specs)) end
    local n, ms, sites = #specs, {}, {}
    for i = 1, n do
      local s = specs[i]
      if type(s) ~= "table" then argerror(1, fname, "specs[%d] must be a {dims, opts} table, got %s", i, type(s)) end
      sites[i] = { fname = fname, dims_arg = 1, opts_arg = 1, prefix = string.format("specs[%d]: ", i),
                   default_place = "scratch", kind = "" }
      check_spec(sites[i], s[1], s[2])
    end
    check_callable(fn, 2, fname)
    local function nest(i)
      if i > n then return fn(table.unpack(ms, 1, n)) end
      return cached_mat(sites[i], specs[i][1], specs[i][2], function(m)
        ms[i] = m
        return nest(i + 1)
      end)
    end
    return nest(1)
  end

  -- gm.with_ones(dims, {ctype, place = "ones"}, fn): fn(m) with every
  -- element of m equal to 1 (m must not be written)
  local ones_site = {
    fname = "with_ones", dims_arg = 1, opts_arg = 2, prefix = "", default_place = "ones", kind = "ones:",
  }
  function gm.with_ones(dims, opts, fn)
    opts = check_opts(opts, 2, ones_site.fname, { ctype = true, place = true })
    check_callable(fn, 3, ones_site.fname)
    return cached_mat(ones_site, dims, { ctype = opts.ctype, place = opts.place, initial_element = 1 }, fn)
  end
end
