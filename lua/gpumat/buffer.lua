-- Buffers, memory spaces and scoped allocation
-- caches, Lua side: Lua sequences as buffers ("lua" kind,
-- nested for rank > 1, GC-managed), the with_deref helpers, write/read on
-- Lua files, ensure of tables, memory_type_dispatch, cached/uncached.
-- gpumat buffers are the C userdata of src/lua/l_buffer.c.
return function(gm, core, methods)
  local argcheck = require "gpumat.argcheck"
  local function argerror(fname, n, fmt, ...) argcheck.argerror(n, fname, fmt, ...) end
  local function check_callable(fname, n, f) return argcheck.check_callable(f, n, fname) end
  -- gm.name = dispatch(name, lua_impl, c_impl): lua_impl serves Lua tables
  -- (checked for its argument count like every Lua-side function)
  local function dispatch(name, lua_impl, c_impl)
    return core.buffer_dispatch(argcheck.strict(name, lua_impl), c_impl)
  end
  local is_buffer = core.is_buffer

  local function is_mat(x) return getmetatable(x) == getmetatable(core.mat(0)) end
  local mat_mt = getmetatable(core.mat(0))

  local function is_table(x) return type(x) == "table" and getmetatable(x) ~= mat_mt end

  local function check_opts(fname, arg, opts)
    if opts ~= nil and not is_table(opts) then argerror(fname, arg, "options table expected, got %s", type(opts)) end
  end

  -- ---- Lua tables as buffers ----

  local function table_dims(t)
    local dims, x = {}, t
    while type(x) == "table" do
      dims[#dims + 1] = #x
      x = x[1]
    end
    return dims
  end

  local function table_size(t)
    local n = 1
    for _, d in ipairs(table_dims(t)) do n = n * d end
    return n
  end

  -- element k (0-based row-major) of a nested table: the parent table and key
  local function table_slot(t, dims, k)
    local subs, r = {}, k
    for a = #dims, 1, -1 do
      subs[a] = r % dims[a]
      r = r // dims[a]
    end
    local x = t
    for a = 1, #dims - 1 do x = x[subs[a] + 1] end
    return x, subs[#dims] + 1
  end

  local function check_buffer(fname, arg, b)
    if is_table(b) or is_buffer(b) then return end
    argerror(fname, arg, "buffer expected, got %s", is_mat(b) and "gpumat.mat" or type(b))
  end

  function gm.bufferp(x)
    if is_buffer(x) then return "foreign" end
    if is_table(x) then return "lua" end
    return nil
  end

  gm.buffer_refcnt = dispatch("buffer_refcnt", function(b) return true
  end, core.buffer_refcnt_core)

  gm.ref_buffer = dispatch("ref_buffer", function(b) return b
  end, core.ref_buffer_core)

  -- true for a Lua table, else the C deref (no Lua frame on the hot path)
  gm.deref_buffer = core.deref_buffer

  local function deref_all(list)
    for i = 1, list.n or #list do
      local b = list[i]
      if b ~= nil and not is_table(b) then core.deref_buffer(b) end
    end
  end

  local function finish(list, ok, ...)
    deref_all(list)
    if not ok then error((...), 0) end
    return ...
  end

  function gm.with_deref_buffer(b, fn)
    check_callable("with_deref_buffer", 2, fn)
    if b ~= nil then check_buffer("with_deref_buffer", 1, b) end
    return finish({ b, n = 1 }, pcall(fn, b))
  end

  function gm.with_deref_buffers(list, fn)
    if type(list) ~= "table" then argerror("with_deref_buffers", 1, "list of buffers expected, got %s", type(list)) end
    check_callable("with_deref_buffers", 2, fn)
    for i = 1, #list do check_buffer("with_deref_buffers", 1, list[i]) end
    return finish(list, pcall(fn, table.unpack(list)))
  end

  gm.buffer_element_type = dispatch("buffer_element_type", function(b) return "double"
  end, core.buffer_element_type_core)

  gm.buffer_foreign_type = dispatch("buffer_foreign_type", function(b) return "double"
  end, core.buffer_foreign_type_core)

  gm.buffer_rank = dispatch("buffer_rank", function(b) return #table_dims(b)
  end, core.buffer_rank_core)

  gm.buffer_dimensions = dispatch("buffer_dimensions", function(b) return table_dims(b)
  end, core.buffer_dimensions_core)

  gm.buffer_dimension = dispatch("buffer_dimension", function(b, axis)
      local dims = table_dims(b)
      if math.type(axis) ~= "integer" or axis < 1 or axis > #dims then
        argerror("buffer_dimension", 2, "axis must be an integer in 1..%d", #dims)
      end
      return dims[axis]
  end, core.buffer_dimension_core)

  gm.buffer_size = dispatch("buffer_size", function(b) return table_size(b)
  end, core.buffer_size_core)

  local function table_index(fname, b, ...)
    local dims, subs = table_dims(b), table.pack(...)
    if subs.n ~= #dims then argcheck.error("%s: %d subscripts for a buffer of rank %d", fname, subs.n, #dims) end
    local k = 0
    for a = 1, #dims do
      local i = subs[a]
      if math.type(i) ~= "integer" or i < 1 or i > dims[a] then
        argerror(fname, a + 1, "index %s is out of range 1..%d", tostring(i), dims[a])
      end
      k = k * dims[a] + (i - 1)
    end
    return k, dims
  end

  gm.buffer_row_major_index = dispatch("buffer_row_major_index", function(b, ...) return (table_index("buffer_row_major_index", b, ...)) + 1
  end, core.buffer_row_major_index_core)

  gm.bref = dispatch("bref", function(b, ...)
      local k, dims = table_index("bref", b, ...)
      local t, key = table_slot(b, dims, k)
      return t[key]
  end, core.bref_core)

  gm.set_bref = dispatch("set_bref", function(b, ...)
      local args = table.pack(...)
      local v = args[args.n]
      if type(v) ~= "number" then argerror("set_bref", args.n + 1, "number expected, got %s", type(v)) end
      local k, dims = table_index("set_bref", b, table.unpack(args, 1, args.n - 1))
      local t, key = table_slot(b, dims, k)
      t[key] = v
      return
  end, core.set_bref_core)

  local function check_linear(fname, b, k)
    local n = table_size(b)
    if math.type(k) ~= "integer" or k < 1 or k > n then argerror(fname, 2, "index %s is out of range 1..%d", tostring(k), n) end
  end

  gm.row_major_bref = dispatch("row_major_bref", function(b, k)
      check_linear("row_major_bref", b, k)
      local t, key = table_slot(b, table_dims(b), k - 1)
      return t[key]
  end, core.row_major_bref_core)

  gm.set_row_major_bref = dispatch("set_row_major_bref", function(b, k, v)
      check_linear("set_row_major_bref", b, k)
      if type(v) ~= "number" then argerror("set_row_major_bref", 3, "number expected, got %s", type(v)) end
      local t, key = table_slot(b, table_dims(b), k - 1)
      t[key] = v
      return
  end, core.set_row_major_bref_core)

  gm.buffer_fill = dispatch("buffer_fill", function(b, v, opts)
      if type(v) ~= "number" then argerror("buffer_fill", 2, "number expected, got %s", type(v)) end
      check_opts("buffer_fill", 3, opts)
      local n = table_size(b)
      local start, stop = opts and opts.start or 1, opts and opts.stop or n
      if math.type(start) ~= "integer" or start < 1 or start > n + 1 then argerror("buffer_fill", 3, "start %s is out of range 1..%d", tostring(start), n + 1) end
      if math.type(stop) ~= "integer" or stop > n or stop < start - 1 then argerror("buffer_fill", 3, "stop %s is out of range %d..%d", tostring(stop), start - 1, n) end
      local dims = table_dims(b)
      for k = start - 1, stop - 1 do
        local t, key = table_slot(b, dims, k)
        t[key] = v
      end
      return
  end, core.buffer_fill_core)

  -- copies where either side is a Lua table go element by element
  local function slow_copy(src, si, dst, di, n)
    for k = 0, n - 1 do gm.set_row_major_bref(dst, di + k, gm.row_major_bref(src, si + k)) end
  end

  function gm.copy_buffer_data(src, si, dst, di, count)
    check_buffer("copy_buffer_data", 1, src)
    check_buffer("copy_buffer_data", 3, dst)
    if is_table(src) or is_table(dst) then
      local sn, dn = gm.buffer_size(src), gm.buffer_size(dst)
      if math.type(si) ~= "integer" or si < 1 or si > sn + 1 then argerror("copy_buffer_data", 2, "index %s is out of range 1..%d", tostring(si), sn + 1) end
      if math.type(di) ~= "integer" or di < 1 or di > dn + 1 then argerror("copy_buffer_data", 4, "index %s is out of range 1..%d", tostring(di), dn + 1) end
      local room = math.min(sn + 1 - si, dn + 1 - di)
      local n = count
      if count == true then
        n = room
      elseif math.type(count) ~= "integer" or count < 0 or count > room then
        argerror("copy_buffer_data", 5, "count %s does not fit (at most %d)", tostring(count), room)
      end
      if src == dst and n > 0 and si < di + n and di < si + n then argcheck.error("copy_buffer_data: source and destination areas overlap") end
      slow_copy(src, si, dst, di, n)
      return n
    end
    return core.copy_buffer_data_core(src, si, dst, di, count)
  end

  function gm.copy_full_buffer(src, dst)
    check_buffer("copy_full_buffer", 1, src)
    check_buffer("copy_full_buffer", 2, dst)
    if src == dst then return end
    if is_table(src) or is_table(dst) then
      local n = gm.buffer_size(src)
      if n ~= gm.buffer_size(dst) then argcheck.error("copy_full_buffer: sizes differ (%d and %d)", n, gm.buffer_size(dst)) end
      slow_copy(src, 1, dst, 1, n)
      return
    end
    return core.copy_full_buffer_core(src, dst)
  end

  local function check_file(fname, f)
    if io.type(f) ~= "file" then argerror(fname, 2, "open Lua file expected, got %s", io.type(f) or type(f)) end
  end

  function gm.write_buffer(b, f)
    check_buffer("write_buffer", 1, b)
    check_file("write_buffer", f)
    local s
    if is_table(b) then
      local parts = {}
      for k = 1, table_size(b) do parts[k] = string.pack("<d", gm.row_major_bref(b, k)) end
      s = table.concat(parts)
    else
      s = core.buffer_bytes(b)
    end
    local ok, err = f:write(s)
    if not ok then argcheck.error("write_buffer: %s", tostring(err)) end
  end

  function gm.read_buffer(b, f)
    check_buffer("read_buffer", 1, b)
    check_file("read_buffer", f)
    local n = is_table(b) and table_size(b) * 8 or gm.buffer_size(b) * #string.pack("<" .. ({
      int8 = "i1", uint8 = "I1", int16 = "i2", uint16 = "I2", int32 = "i4", uint32 = "I4", int64 = "i8",
      float = "f", double = "d" })[gm.buffer_element_type(b)], 0)
    local s = n == 0 and "" or f:read(n)
    if s == nil or #s ~= n then
      argcheck.error("read_buffer: file too short (%d of %d bytes)", s and #s or 0, n)
    end
    if is_table(b) then
      for k = 1, n // 8 do gm.set_row_major_bref(b, k, (string.unpack("<d", s, (k - 1) * 8 + 1))) end
    else
      core.buffer_set_bytes(b, s)
    end
  end

  local function nest(flat, dims)
    if #dims == 0 then return flat[1] end
    local function build(level, start)
      local t, stride = {}, 1
      for a = level + 1, #dims do stride = stride * dims[a] end
      for i = 1, dims[level] do
        if level == #dims then
          t[i] = flat[start + i - 1]
        else
          t[i] = build(level + 1, start + (i - 1) * stride)
        end
      end
      return t
    end
    return build(1, 1)
  end

  function gm.buffer_as_array(b, opts)
    check_buffer("buffer_as_array", 1, b)
    check_opts("buffer_as_array", 2, opts)
    if is_table(b) then return b, true end
    local dims = core.buffer_dimensions_core(b)
    local flat
    if opts and opts.no_copy then
      flat = {}
      for k = 1, core.buffer_size_core(b) do flat[k] = 0 end
    else
      flat = core.buffer_to_list(b)
    end
    return nest(flat, dims), false
  end

  function gm.buffer_displacement(b)
    check_buffer("buffer_displacement", 1, b)
    if is_table(b) then return nil end
    return core.buffer_displacement_core(b)
  end

  -- ---- memory spaces ----

  local function table_to_buffer(t, opts)
    local et = opts and (opts.ctype or opts.element_type) or "double"
    local dims = table_dims(t)
    local b = core.make_foreign_array(dims, { element_type = et })
    local n = table_size(t)
    for k = 1, n do
      local v = gm.row_major_bref(t, k)
      if type(v) ~= "number" then argerror("ensure", 1, "element %d is a %s, expected a number", k, type(v)) end
      core.set_row_major_bref_core(b, k, v)
    end
    return b
  end

  gm.ensure = dispatch("ensure", function(x, mem_type, opts)
    check_opts("ensure", 3, opts)
    local b = table_to_buffer(x, opts)
    local r = core.ensure_core(b, mem_type, opts)
    if r:is_owning() then return r end
    return b -- the table's host copy itself: owning
  end, core.ensure_core)

  local dispatch_order = { "device", "managed", "pinned", "host" }
  local device_types = { device = true, managed = true, pinned = true }

  function gm.memory_type_dispatch(x, fns)
    if type(fns) ~= "table" then argerror("memory_type_dispatch", 2, "table of functions expected, got %s", type(fns)) end
    for k, f in pairs(fns) do
      if not (k == "host" or device_types[k]) then argerror("memory_type_dispatch", 2, "unknown memory type '%s'", tostring(k)) end
      check_callable("memory_type_dispatch", 2, f)
    end
    local own
    if is_buffer(x) then
      own = x:mem_type()
    elseif is_mat(x) then
      local cuda = gm.find_facet(x, "cuda")
      own = (cuda and cuda.up_to_date) and "device" or "host"
    elseif is_table(x) then
      own = "host"
    else
      argerror("memory_type_dispatch", 1, "mat, buffer or Lua table expected, got %s", type(x))
    end
    local in_cuda = core.current_device_p()
    if fns[own] and (own == "host" or in_cuda) then return fns[own](gm.ensure(x, own)) end
    for _, t in ipairs(dispatch_order) do
      if fns[t] and (t == "host" or in_cuda) then return fns[t](gm.ensure(x, t)) end
    end
    argcheck.error("memory_type_dispatch: no function for a usable memory type")
  end

  -- ---- scoped allocation caches ----

  -- cache_finish(scope, ok, ...) keeps the direct results' blocks, pops
  -- the scope, and returns the results or raises the error (error(e, 0))
  local cache_push, cache_finish = core.cache_push, core.cache_finish

  local cache_check = core.cache_check

  -- the scope is pushed only after every argument check passed (an error
  -- in between would leave it on the thread's stack)
  function gm.cached(cache, fn, ...)
    cache_check(cache)
    if type(fn) ~= "function" then check_callable("cached", 2, fn) end
    local scope = cache_push(cache)
    return cache_finish(scope, pcall(fn, ...))
  end

  function gm.uncached(fn, ...)
    if type(fn) ~= "function" then check_callable("uncached", 1, fn) end
    local scope = cache_push(nil)
    return cache_finish(scope, pcall(fn, ...))
  end

  -- buffer methods (b:f(...) = gm.f(b, ...))
  local bm = core.buffer_methods_table
  for _, name in ipairs({ "bref", "set_bref", "row_major_bref", "set_row_major_bref", "buffer_fill",
    "buffer_size", "buffer_rank", "buffer_dimensions", "buffer_dimension", "buffer_element_type",
    "buffer_refcnt", "ref_buffer", "deref_buffer", "buffer_pitch", "buffer_displace", "buffer_displacement" }) do
    bm[(name:gsub("^buffer_", ""))] = argcheck.strict(name, gm[name])
  end
  gm.buffer_methods_table = nil
  for _, name in ipairs({ "buffer_refcnt_core", "ref_buffer_core", "buffer_element_type_core",
    "buffer_foreign_type_core", "buffer_rank_core", "buffer_dimensions_core", "buffer_dimension_core",
    "buffer_size_core", "buffer_row_major_index_core", "bref_core", "set_bref_core", "row_major_bref_core",
    "set_row_major_bref_core", "buffer_fill_core", "copy_buffer_data_core", "copy_full_buffer_core",
    "buffer_bytes", "buffer_set_bytes", "buffer_to_list", "buffer_displacement_core", "ensure_core",
    "cache_push", "cache_finish", "cache_check", "is_buffer", "buffer_close", "buffer_mem_type",
    "buffer_is_owning", "buffer_layout", "current_device_p" }) do
    gm[name] = nil
  end
end
