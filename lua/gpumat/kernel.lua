-- Run-time kernels (API.md "Run-time kernels", MGL's define-cuda-kernel).
--
-- gm.define_cuda_kernel{name, params, body, ctypes} returns a callable.
-- The body is the code of ONE CUDA thread (statements of a __global__
-- function); it does its own indexing, typically a grid-stride loop:
--
--   for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
--        i += (int64_t)blockDim.x * gridDim.x) y[i] += alpha * x[i];
--
-- On the host and on the emulated device the kernel runs on the CPU
-- execution model (kernels/cpu/cuda_cpu.h): the generated C++ source is
-- compiled by the system C++ compiler into a shared object, once per
-- (source, ctype, compiler), cached in memory and on disk
-- ($GPUMAT_CACHE_DIR, else $XDG_CACHE_HOME/gpumat, else ~/.cache/gpumat),
-- and loaded with dlopen.  Compilation happens at the first call with a
-- given ctype.  On a CUDA device the body is compiled by NVRTC to PTX for
-- the device's compute capability at the first launch there, cached in
-- memory (per device) and on disk (per source, NVRTC version and compute
-- capability), loaded with the runtime's library API and launched on the
-- context's stream.
return function(gm, core)
  local fname = "define_cuda_kernel"
  local mat_mt = getmetatable(core.mat(0))
  local function is_mat(x) return getmetatable(x) == mat_mt end

  local argcheck = require "gpumat.argcheck"
  local function argerr(argn, fn, msg) argcheck.argerror(argn, fn, "%s", msg) end

  -- 64-bit FNV-1a (cache key; collisions are checked against the stored source)
  local function fnv1a(s)
    local h = -3750763034362895579 -- 0xcbf29ce484222325
    for i = 1, #s do
      h = (h ~ s:byte(i)) * 1099511628211
    end
    return ("%016x"):format(h)
  end

  local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
  local function dirname(p) return p:match("^(.*)/[^/]*$") or "." end

  local header_dir
  local function find_header_dir()
    if header_dir then return header_dir end
    local so = package.searchpath("gpumat.core", package.cpath)
    if so then
      local d = dirname(so)
      local f = io.open(d .. "/cuda_cpu.h")
      if f then f:close(); header_dir = d; return d end
    end
    argcheck.error("define_cuda_kernel: cuda_cpu.h (the CPU model of CUDA) not found next to gpumat/core.so")
  end

  local cxx = os.getenv("GPUMAT_CXX") or "c++"
  local cxxflags = "-std=c++17 -O3 -march=native -fPIC -shared -fopenmp -fno-math-errno -w"
  local compiler_id
  local function get_compiler_id(kernel_name)
    if compiler_id then return compiler_id end
    local p = io.popen(cxx .. " --version 2>/dev/null")
    local v = p and p:read("a") or ""
    if p then p:close() end
    if v == "" then
      argcheck.error("%s: running a kernel on the CPU (host or emulated device) needs a C++ compiler, and '%s' " ..
        "(GPUMAT_CXX) does not run", kernel_name or "define_cuda_kernel", cxx)
    end
    -- the CPU model's header is part of every kernel: a changed header
    -- must not reuse objects compiled with the old one
    local hf = io.open(find_header_dir() .. "/cuda_cpu.h", "rb")
    local header = hf and hf:read("a") or ""
    if hf then hf:close() end
    compiler_id = cxx .. "\n" .. v .. cxxflags .. "\n" .. header
    return compiler_id
  end

  local cache_dir
  local function get_cache_dir()
    if cache_dir then return cache_dir end
    local d = os.getenv("GPUMAT_CACHE_DIR")
    if not d or d == "" then
      local x = os.getenv("XDG_CACHE_HOME")
      if x and x ~= "" then d = x .. "/gpumat"
      else d = (os.getenv("HOME") or "/tmp") .. "/.cache/gpumat" end
    end
    -- an unwritable cache (read-only HOME in CI) falls back to /tmp
    for _, cand in ipairs { d .. "/kernels", "/tmp/gpumat-" .. (os.getenv("USER") or "user") .. "/kernels" } do
      os.execute("mkdir -p " .. sh(cand) .. " 2>/dev/null")
      local probe = cand .. "/.probe"
      local f = io.open(probe, "w")
      if f then
        f:close()
        os.remove(probe)
        cache_dir = cand
        return cand
      end
    end
    argcheck.error("define_cuda_kernel: no writable kernel cache directory (set GPUMAT_CACHE_DIR)")
  end


  local stats = { compiles = 0, disk_hits = 0, memory_hits = 0, range_launches = 0 }
  local loaded = {} -- key -> kernel_so handle (memory cache)

  local ctype_c = { float = "float", double = "double" }

  local range_form = require "gpumat.kernel_range"
  local exact_geometry = os.getenv("GPUMAT_EMULATED_GEOMETRY") == "exact"

  -- The range form of a recognized body (kernel_range.lua): the kernel's
  -- statement in a counted loop over [lo, hi), its bound evaluated in the
  -- launcher, used for 1-d launches.
  local function generate_range(name, r, decl, args)
    local d = table.concat(decl, ", ")
    local a = table.concat(args, ", ")
    return table.concat({
      "inline void " .. name .. "_gm_range(int64_t gm_lo_, int64_t gm_hi_" .. (#decl > 0 and ", " or "") .. d .. ") {",
      ("  for (%s %s = (%s)gm_lo_; %s < (%s)gm_hi_; %s++)"):format(r.type, r.var, r.type, r.var, r.type, r.var),
      ('#line %d "%s"'):format(r.line, name),
      r.stmt,
      "}",
      "inline int64_t " .. name .. "_gm_bound(" .. d .. ") { return (int64_t)(" .. r.bound .. "); }",
    }, "\n"), table.concat({
      "  if (g[1] == 1 && g[2] == 1 && g[4] == 1 && g[5] == 1) {",
      "    int64_t gm_n_ = " .. name .. "_gm_bound(" .. a .. ");",
      r.form == "element" and "    if ((int64_t)g[0] * g[3] < gm_n_) gm_n_ = (int64_t)g[0] * g[3];" or "",
      "    auto range = [=](int64_t gm_lo_, int64_t gm_hi_) {",
      "      " .. name .. "_gm_range(gm_lo_, gm_hi_" .. (#args > 0 and ", " or "") .. a .. ");",
      "    };",
      "    gmcpu::launch_range(gm_n_, range);",
      "    return;",
      "  }",
    }, "\n")
  end

  -- range: kernel_range.recognize's result for the body, or nil
  local function generate(name, params, body, ctype, sync, range)
    local decl, unpack = {}, {}
    for i, p in ipairs(params) do
      local pname, kind, dir = p[1], p[2], p[3]
      if kind == "mat" then
        decl[#decl + 1] = (dir == "input" and "const T *" or "T *") .. pname
        unpack[#unpack + 1] = ("(%sT *)a[%d]"):format(dir == "input" and "const " or "", i - 1)
      elseif kind == "scalar" then
        decl[#decl + 1] = "T " .. pname
        unpack[#unpack + 1] = ("(T)*(const double *)a[%d]"):format(i - 1)
      else
        decl[#decl + 1] = "int64_t " .. pname
        unpack[#unpack + 1] = ("*(const int64_t *)a[%d]"):format(i - 1)
      end
    end
    -- arguments unpacked once per launch, captured by the thread lambda
    local locals, args = {}, {}
    for i, e in ipairs(unpack) do
      locals[i] = ("  auto gm_a%d_ = %s;"):format(i, e)
      args[i] = ("gm_a%d_"):format(i)
    end
    locals = table.concat(locals, "\n")
    local range_fn, range_launch = "", ""
    if range then range_fn, range_launch = generate_range(name, range, decl, args) end
    return table.concat({
      "// gpumat run-time kernel " .. name .. " (" .. ctype .. ")",
      '#include "cuda_cpu.h"',
      "typedef " .. ctype_c[ctype] .. " T;",
      "namespace {",
      "inline void " .. name .. "(const gmcpu::index &gmcpu_ix_" .. (#decl > 0 and ", " or "")
        .. table.concat(decl, ", ") .. ") {",
      "GMCPU_KERNEL_INDEX",
      "#line 1 \"" .. name .. "\"",
      body,
      "}",
      range_fn,
      "}",
      'extern "C" __attribute__((visibility("default"))) void gpumat_kernel_launch(void *const *a, const unsigned *g) {',
      locals,
      range_launch,
      "  auto thread = [=](const gmcpu::index &ix) {",
      "    " .. name .. "(ix" .. (#unpack > 0 and ", " or "") .. table.concat(args, ", ") .. ");",
      "  };",
      ("  gmcpu::launch(dim3(g[0], g[1], g[2]), dim3(g[3], g[4], g[5]), %s, thread);"):format(
        sync and "true" or "false"),
      "}",
      "",
    }, "\n")
  end

  local function read_file(path)
    local f = io.open(path, "rb")
    if not f then return nil end
    local s = f:read("a")
    f:close()
    return s
  end

  -- error objects of failed compiles: tostring gives the message
  local error_mt = {}
  error_mt.__tostring = argcheck.strict("__tostring", function(t)
    if getmetatable(t) ~= error_mt then argerr(1, "__tostring", "kernel error object expected, got " .. type(t)) end
    return t.message
  end)

  local function compile_error(name, ctype, log)
    return setmetatable({
      kind = "compile_error",
      message = ("%s: the kernel does not compile for %s:\n%s"):format(name, ctype, log),
      log = log,
      compiler = cxx,
    }, error_mt)
  end

  -- Shared object for (source, ctype): memory cache, disk cache, compile.
  local function load_kernel(name, src, ctype)
    local key = fnv1a(get_compiler_id(name) .. "\0" .. src)
    local so = loaded[key]
    if so then stats.memory_hits = stats.memory_hits + 1; return so end
    local dir = get_cache_dir()
    local base = dir .. "/" .. key
    if read_file(base .. ".cpp") == src and read_file(base .. ".so") then
      local h, err = core.kernel_load(base .. ".so")
      if h then
        stats.disk_hits = stats.disk_hits + 1
        loaded[key] = h
        return h
      end
      io.stderr:write(("gpumat: %s: cached %s.so does not load (%s); recompiling\n"):format(name, base, err))
    end
    -- unique temporary names: several processes may compile the same key
    local tmp = ("%s.%s.%d"):format(base, tostring({}):match("0x(%x+)") or "t", os.time())
    local f = assert(io.open(tmp .. ".cpp", "wb"))
    f:write(src)
    f:close()
    local cmd = ("%s %s -I%s -o %s %s 2>%s"):format(cxx, cxxflags, sh(find_header_dir()), sh(tmp .. ".so"),
      sh(tmp .. ".cpp"), sh(tmp .. ".log"))
    local ok = os.execute(cmd)
    local log = read_file(tmp .. ".log") or ""
    os.remove(tmp .. ".log")
    stats.compiles = stats.compiles + 1
    if not ok then
      os.remove(tmp .. ".cpp")
      os.remove(tmp .. ".so")
      error(compile_error(name, ctype, log), 0)
    end
    os.rename(tmp .. ".so", base .. ".so")
    os.rename(tmp .. ".cpp", base .. ".cpp")
    local h, err = core.kernel_load(base .. ".so")
    if not h then error(("%s: compiled kernel does not load: %s"):format(name, err), 0) end
    loaded[key] = h
    return h
  end

  -- NVRTC ------------------------------------------------------------------
  local function generate_cuda(name, params, body, ctype)
    local decl = {}
    for i, p in ipairs(params) do
      local pname, kind, dir = p[1], p[2], p[3]
      if kind == "mat" then
        decl[i] = (dir == "input" and "const T *" or "T *") .. pname
      elseif kind == "scalar" then
        decl[i] = "T " .. pname
      else
        decl[i] = "int64_t " .. pname
      end
    end
    return table.concat({
      "// gpumat run-time kernel " .. name .. " (" .. ctype .. "), NVRTC",
      "typedef " .. ctype_c[ctype] .. " T;",
      "typedef long long int64_t;",
      "typedef unsigned long long uint64_t;",
      "typedef int int32_t;",
      "typedef unsigned uint32_t;",
      'extern "C" __global__ void ' .. name .. "(" .. table.concat(decl, ", ") .. ") {",
      "#line 1 \"" .. name .. "\"",
      body,
      "}",
      "",
    }, "\n")
  end

  local function nvrtc_error(name, arch, log, message)
    return setmetatable({
      kind = "nvrtc_error",
      message = ("%s: %s:\n%s"):format(name, message, log),
      log = log,
      arch = arch,
    }, error_mt)
  end

  -- Code of src for compute capability major.minor: CUBIN (sm_XY,
  -- machine code) when cubin, else PTX (compute_XY); disk cache, compile.
  -- Returns the code and the architecture, or (CUBIN only) nil when this
  -- NVRTC cannot make machine code for that architecture.
  local function nvrtc_code(name, src, major, minor, cubin)
    local vmaj, vmin = core.nvrtc_version()
    if not vmaj then error(("%s: %s"):format(name, vmin), 0) end
    local arch = (cubin and "sm_%d%d" or "compute_%d%d"):format(major, minor)
    local ext = cubin and ".cubin" or ".ptx"
    local key = fnv1a(("nvrtc %d.%d %s\0%s"):format(vmaj, vmin, arch, src))
    local base = get_cache_dir() .. "/" .. key
    if read_file(base .. ".cu") == src then
      local code = read_file(base .. ext)
      if code then
        stats.disk_hits = stats.disk_hits + 1
        return code, arch
      end
    end
    local code, log, msg, unsupported = core.nvrtc_compile(src, name, major, minor, cubin)
    stats.compiles = stats.compiles + 1
    if not code and cubin and unsupported then return nil, arch end
    if not code then error(nvrtc_error(name, arch, log, msg), 0) end
    local tmp = ("%s.%s.%d"):format(base, tostring({}):match("0x(%x+)") or "t", os.time())
    local f = io.open(tmp .. ext, "wb")
    if f then -- an unwritable cache only costs the next process a compile
      f:write(code)
      f:close()
      os.rename(tmp .. ext, base .. ext)
      f = io.open(tmp .. ".cu", "wb")
      if f then
        f:write(src)
        f:close()
        os.rename(tmp .. ".cu", base .. ".cu")
      end
    end
    return code, arch
  end

  -- What a CUDA device loads: machine code for its architecture (no JIT in
  -- the driver, so a driver older than NVRTC still loads it), PTX when
  -- NVRTC cannot make machine code for that architecture.
  local function nvrtc_image(name, src, major, minor)
    local code = nvrtc_code(name, src, major, minor, true)
    if code then return code end
    return (nvrtc_code(name, src, major, minor, false))
  end

  local kinds = { mat = true, scalar = true, int = true }
  local dirs = { input = "i", output = "o", io = "x" }

  -- CUDA's limits per axis (kernels/launch.h): a launch beyond them fails
  -- on a GPU with cudaErrorInvalidConfiguration, so every backend refuses
  -- it, and the block's threads are at most 1024 in all
  local dim_max = {
    grid_dim = { 0x7fffffff, 65535, 65535 },
    block_dim = { 1024, 1024, 64 },
  }
  local function check_dim3(v, what, fn, argn)
    if type(v) ~= "table" then argerr(argn, fn, what .. " must be a list of 1 to 3 positive integers") end
    local r = {}
    for i = 1, 3 do
      local x = v[i]
      if x == nil and i > 1 then x = 1 end
      if math.type(x) ~= "integer" or x < 1 then
        argerr(argn, fn, ("%s[%d] must be a positive integer, got %s"):format(what, i, tostring(x)))
      end
      if x > dim_max[what][i] then
        argerr(argn, fn, ("%s[%d] is %d, over CUDA's limit of %d (cudaErrorInvalidConfiguration on a GPU)")
          :format(what, i, x, dim_max[what][i]))
      end
      r[i] = x
    end
    return r
  end

  function gm.define_cuda_kernel(spec)
    if type(spec) ~= "table" then argerr(1, fname, "table expected, got " .. type(spec)) end
    for k in pairs(spec) do
      if k ~= "name" and k ~= "params" and k ~= "body" and k ~= "ctypes" then
        argerr(1, fname, "unknown key '" .. tostring(k) .. "'")
      end
    end
    local name, params, body = spec.name, spec.params, spec.body
    if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then
      argerr(1, fname, "name must be a C identifier")
    end
    if type(body) ~= "string" then argerr(1, fname, "body must be a string of CUDA C statements") end
    if type(params) ~= "table" then argerr(1, fname, "params must be a list") end
    local ps, seen, codes = {}, {}, {}
    for i, p in ipairs(params) do
      if type(p) ~= "table" or type(p[1]) ~= "string" or not p[1]:match("^[%a_][%w_]*$") then
        argerr(1, fname, ("params[%d] must be {name, kind[, direction]} with a C identifier"):format(i))
      end
      if seen[p[1]] then argerr(1, fname, ("params[%d]: duplicate name '%s'"):format(i, p[1])) end
      seen[p[1]] = true
      if not kinds[p[2]] then
        argerr(1, fname, ("params[%d] (%s): kind must be mat, scalar or int"):format(i, p[1]))
      end
      local dir = p[3]
      if p[2] == "mat" then
        if dir == nil then dir = "io" end
        if not dirs[dir] then
          argerr(1, fname, ("params[%d] (%s): direction must be input, output or io"):format(i, p[1]))
        end
        codes[i] = dirs[dir]
      elseif dir ~= nil then
        argerr(1, fname, ("params[%d] (%s): only mats have a direction"):format(i, p[1]))
      else
        codes[i] = p[2] == "scalar" and "s" or "n"
      end
      ps[i] = { p[1], p[2], dir }
    end
    if #ps > 32 then argerr(1, fname, "at most 32 params") end
    local ctypes = spec.ctypes or { "float", "double" }
    if type(ctypes) ~= "table" or #ctypes == 0 then argerr(1, fname, "ctypes must be a non-empty list") end
    local allowed = {}
    for i, c in ipairs(ctypes) do
      if not ctype_c[c] then argerr(1, fname, ("ctypes[%d] must be float or double"):format(i)) end
      allowed[c] = true
    end
    local spec_codes = table.concat(codes)
    local np = #ps
    local first_mat
    for i, p in ipairs(ps) do if p[2] == "mat" then first_mat = i; break end end
    local sync = body:find("__syncthreads", 1, true) ~= nil
    -- GPUMAT_EMULATED_GEOMETRY=exact: every CPU launch runs its blocks of
    -- threads with the body's own index math, as the emulated device's
    -- built-in kernels then do (kernels/cpu/emu_kernels.h)
    local range = not sync and not exact_geometry and range_form.recognize(body, ps) or nil
    local sources, handles = {}, {}
    local cuda_sources, cuda_handles = {}, {} -- NVRTC: per ctype, per ctype@device
    local last_size, last_geom -- default geometry of the last size (launch overhead)

    local kernel -- the object, set below
    local function call(self, ...)
      if self ~= kernel then argerr(1, "__call", "kernel " .. name .. " expected, got " .. type(self)) end
      local n = select("#", ...)
      local opts
      if n == np + 1 then
        opts = select(n, ...)
        if type(opts) ~= "table" or is_mat(opts) then
          argerr(n, name, ("%d arguments expected, got %d"):format(np, n))
        end
        n = np
      elseif n ~= np then
        argerr(n > np and np + 1 or n + 1, name, ("%d arguments expected, got %d"):format(np, n))
      end
      local ctype
      for i = 1, np do
        local v = select(i, ...)
        local kind = ps[i][2]
        if kind == "mat" then
          if not is_mat(v) then argerr(i, name, ("%s: gpumat.mat expected, got %s"):format(ps[i][1], type(v))) end
          local c = v:ctype()
          if ctype and c ~= ctype then
            argerr(i, name, ("%s: mixed ctypes (%s and %s); all mat arguments must have one ctype"):format(
              ps[i][1], ctype, c))
          end
          ctype = c
        elseif kind == "scalar" then
          if type(v) ~= "number" then argerr(i, name, ("%s: number expected, got %s"):format(ps[i][1], type(v))) end
        elseif math.type(v) ~= "integer" then
          argerr(i, name, ("%s: integer expected, got %s"):format(ps[i][1], math.type(v) or type(v)))
        end
      end
      ctype = ctype or gm.default_ctype
      if not allowed[ctype] then
        argcheck.error("%s: not defined for ctype %s (ctypes of the definition)", name, ctype)
      end
      local geom
      if opts then
        for k in pairs(opts) do
          if k ~= "grid_dim" and k ~= "block_dim" then
            argerr(np + 1, name, "unknown option '" .. tostring(k) .. "'")
          end
        end
        if opts.grid_dim == nil or opts.block_dim == nil then
          argerr(np + 1, name, "both grid_dim and block_dim are needed")
        end
        local g = check_dim3(opts.grid_dim, "grid_dim", name, np + 1)
        local b = check_dim3(opts.block_dim, "block_dim", name, np + 1)
        if b[1] * b[2] * b[3] > 1024 then
          argerr(np + 1, name, ("a block has at most 1024 threads, block_dim has %d"):format(b[1] * b[2] * b[3]))
        end
        geom = { g[1], g[2], g[3], b[1], b[2], b[3] }
      else
        if not first_mat then
          argerr(np + 1, name, "no mat argument to size the default launch: give {grid_dim, block_dim}")
        end
        -- One thread per element of the first mat: blocks of up to 256
        -- threads and as many blocks as that takes (CUDA allows 2^31 - 1
        -- in x), so a grid-stride body runs its loop once per thread and
        -- a one-element-per-thread body (`if (i < n)`) covers the mat.
        -- On the CPU model each block's accesses are contiguous, and the
        -- second form's thread loop vectorizes.
        local size = select(first_mat, ...):size()
        if size == last_size then
          geom = last_geom
        else
          local b = size < 256 and math.max(32, (size + 31) // 32 * 32) or 256
          local g = math.min(math.max((size + b - 1) // b, 1), 2147483647)
          geom = { g, 1, 1, b, 1, 1 }
          last_size, last_geom = size, geom
        end
      end
      local h
      local place, dev, major, minor = core.kernel_place(spec_codes, ...)
      if place == "cuda" then
        local key = ctype .. "@" .. dev
        h = cuda_handles[key]
        if h then
          stats.memory_hits = stats.memory_hits + 1
        else
          cuda_sources[ctype] = cuda_sources[ctype] or generate_cuda(name, ps, body, ctype)
          h = core.kernel_load_ptx(nvrtc_image(name, cuda_sources[ctype], major, minor), name)
          cuda_handles[key] = h
        end
      else
        h = handles[ctype]
        if not h then
          sources[ctype] = sources[ctype] or generate(name, ps, body, ctype, sync, range)
          h = load_kernel(name, sources[ctype], ctype)
          handles[ctype] = h
        end
      end
      if range and place ~= "cuda" and geom[2] == 1 and geom[3] == 1 and geom[5] == 1 and geom[6] == 1 then
        stats.range_launches = stats.range_launches + 1
      end
      core.kernel_launch(h, name, ctype, spec_codes, geom, ...)
    end
    -- The CPU version (host and emulated device) is generated now but
    -- compiled at its first launch on the CPU: a GPU machine without a
    -- host C++ compiler (or libgomp) still defines kernels and runs them
    -- through NVRTC.  A body that does not compile raises compile_error
    -- at that first CPU launch (and nvrtc_error at the first CUDA one).
    for _, c in ipairs(ctypes) do
      sources[c] = generate(name, ps, body, c, sync, range)
    end
    -- k:ptx(ctype, major, minor) / k:cubin(ctype, major, minor): the PTX
    -- (compute_XY) or the machine code (sm_XY, what a launch loads) NVRTC
    -- makes of the body for a CUDA device of that compute capability (no
    -- device needed)
    local function code_method(fname, cubin)
      return function(self, ctype, major, minor)
        if type(self) ~= "table" then argerr(1, fname, "kernel expected") end
        if not allowed[ctype] then
          argerr(2, fname, ("ctype must be one of the definition's ctypes, got %s"):format(tostring(ctype)))
        end
        if math.type(major) ~= "integer" then argerr(3, fname, "integer compute capability major expected") end
        if math.type(minor) ~= "integer" then argerr(4, fname, "integer compute capability minor expected") end
        cuda_sources[ctype] = cuda_sources[ctype] or generate_cuda(name, ps, body, ctype)
        local code, arch = nvrtc_code(name, cuda_sources[ctype], major, minor, cubin)
        if not code then argcheck.error("%s: this NVRTC makes no machine code for %s", name, arch) end
        return code
      end
    end
    local ptx, cubin = code_method("ptx", false), code_method("cubin", true)
    -- its metatable's functions check their arguments like every function
    local function tostring_kernel(self)
      if self ~= kernel then argerr(1, "__tostring", "kernel " .. name .. " expected, got " .. type(self)) end
      return "gpumat kernel " .. name
    end
    kernel = setmetatable({ name = name, ptx = argcheck.strict("ptx", ptx), cubin = argcheck.strict("cubin", cubin) }, {
      __call = call,
      __tostring = argcheck.strict("__tostring", tostring_kernel),
    })
    return kernel
  end

  -- gm.kernel_cache_info() -> {compiles, disk_hits, memory_hits,
  -- host_launches, emulated_launches, cuda_launches, range_launches, dir}
  function gm.kernel_cache_info()
    local h, e, c = core.kernel_launch_counts()
    return {
      compiles = stats.compiles, disk_hits = stats.disk_hits, memory_hits = stats.memory_hits,
      host_launches = h, emulated_launches = e, cuda_launches = c, range_launches = stats.range_launches,
      dir = cache_dir,
    }
  end
  gm.kernel_load, gm.kernel_launch, gm.kernel_launch_counts = nil, nil, nil
  gm.kernel_place, gm.kernel_load_ptx, gm.nvrtc_compile, gm.nvrtc_version = nil, nil, nil, nil
end
