-- Debugging aids for mats (MGL-MAT §17): with_mat_counters and mat_room.
return function(gm, core, methods)
  gm.mat_counters = nil -- internal
  local argerror = require("gpumat.argcheck").argerror

  local function counted(c0, b0, ...)
    local c1, b1 = core.mat_counters()
    return c1 - c0, b1 - b0, ...
  end

  -- gm.with_mat_counters(fn) -> count, n_bytes, fn's results.  Counts
  -- mats created with new storage (gm.mat, array_to_mat, copies, ...) and
  -- the bytes their max_size may need; views made by shaping or
  -- displaced_to share storage and are not counted.  Nests: an outer
  -- count includes the inner ones.
  function gm.with_mat_counters(fn)
    if type(fn) ~= "function" then
      argerror(1, "with_mat_counters", "function expected, got %s", type(fn))
    end
    local c0, b0 = core.mat_counters()
    return counted(c0, b0, fn())
  end

  -- gm.mat_room({verbose = true}) -> report text: foreign_room and, when
  -- the device area provides it, cuda_room.
  function gm.mat_room(opts)
    if opts ~= nil and type(opts) ~= "table" then
      argerror(1, "mat_room", "options table expected, got %s", type(opts))
    end
    for k in pairs(opts or {}) do
      if k ~= "verbose" then
        argerror(1, "mat_room", "unknown option '%s'", tostring(k))
      end
    end
    if opts and opts.verbose ~= nil and type(opts.verbose) ~= "boolean" then
      argerror(1, "mat_room", "option 'verbose' must be a boolean, got %s", type(opts.verbose))
    end
    local sub = { verbose = opts == nil or opts.verbose == nil or opts.verbose }
    local text = gm.foreign_room(sub)
    local cuda_room = rawget(gm, "cuda_room")
    if cuda_room then text = text .. cuda_room(sub) end
    return text
  end
end
