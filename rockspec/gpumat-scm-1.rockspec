rockspec_format = "3.0"
package = "gpumat"
version = "scm-1"
source = { url = "git+file://." }
description = {
  summary = "Multi-dimensional numeric arrays on the host and CUDA GPUs (MGL-MAT for Lua)",
  license = "MIT",
}
dependencies = { "lua >= 5.4, < 5.5" }
build = {
  type = "cmake",
  variables = {
    CMAKE_BUILD_TYPE = "Release",
    CMAKE_INSTALL_PREFIX = "$(PREFIX)",
    GPUMAT_LUA_CDIR = "$(LIBDIR)",
    GPUMAT_LUA_LDIR = "$(LUADIR)",
    GPUMAT_BUILD_TESTS = "OFF",
    -- the Lua module only: libgpumat, its headers and package files are
    -- for `cmake --install` (C applications)
    GPUMAT_LIBRARY = "OFF",
  },
}
