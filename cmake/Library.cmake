# libgpumat for C applications (include/gpumat.h, include/gpumat_lua.h):
# a shared and a static library linked from gpumat_objs (and, through
# gpumat_link, gpumat_base_objs and the kernels) plus the
# embedding entry points (src/lua/embed) with every lua/gpumat/**.lua
# compiled in; installed with the headers, gpumat.pc and the CMake package
# gpumat (find_package(gpumat) -> gpumat::gpumat, gpumat::gpumat_static).
# The Lua module install (gpumat/core.so + lua files) is in CMakeLists.txt.
option(GPUMAT_LIBRARY "Build and install libgpumat, its headers, gpumat.pc and the CMake package" ON)
include(GNUInstallDirs)

if(GPUMAT_LIBRARY)
  # liblua is the host application's: libgpumat leaves the lua_* symbols
  # to it (a second copy of Lua in one process would break), and the
  # package metadata (gpumat.pc Requires, the CMake target) brings it.
  find_library(LUA_LIBRARY NAMES lua5.4 lua54 lua-5.4)
  if(NOT LUA_LIBRARY)
    message(FATAL_ERROR "Lua 5.4 library not found (Debian: liblua5.4-dev)")
  endif()

  file(GLOB_RECURSE GPUMAT_LUA_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/lua/gpumat/*.lua)
  set(GPUMAT_EMBEDDED_C ${CMAKE_BINARY_DIR}/generated/embedded_lua.c)
  add_custom_command(OUTPUT ${GPUMAT_EMBEDDED_C}
    COMMAND ${CMAKE_COMMAND} -DOUT=${GPUMAT_EMBEDDED_C} -DROOT=${CMAKE_SOURCE_DIR}/lua
            "-DFILES=${GPUMAT_LUA_FILES}" -P ${CMAKE_SOURCE_DIR}/cmake/EmbedLua.cmake
    DEPENDS ${GPUMAT_LUA_FILES} ${CMAKE_SOURCE_DIR}/cmake/EmbedLua.cmake
    COMMENT "Embedding lua/gpumat/*.lua into libgpumat" VERBATIM)

  add_library(gpumat_embed_objs OBJECT src/lua/embed/embed.c ${GPUMAT_EMBEDDED_C})
  set_target_properties(gpumat_embed_objs PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
  target_include_directories(gpumat_embed_objs PRIVATE include src src/lua/embed ${LUA_INCLUDE_DIR})
  gpumat_warnings(gpumat_embed_objs)
  if(GPUMAT_SANITIZE)
    target_compile_options(gpumat_embed_objs PRIVATE ${GPUMAT_SAN_FLAGS})
  endif()

  add_library(gpumat SHARED $<TARGET_OBJECTS:gpumat_objs> $<TARGET_OBJECTS:gpumat_embed_objs>)
  add_library(gpumat_static STATIC $<TARGET_OBJECTS:gpumat_objs> $<TARGET_OBJECTS:gpumat_embed_objs>)
  # INSTALL_RPATH_USE_LINK_PATH: an installed libgpumat.so still finds
  # libraries outside the loader's path (a CUDA toolkit in /usr/local/cuda)
  set_target_properties(gpumat PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
    INSTALL_RPATH_USE_LINK_PATH ON)
  set_target_properties(gpumat_static PROPERTIES OUTPUT_NAME gpumat)
  foreach(t gpumat gpumat_static)
    gpumat_link(${t})
    target_link_libraries(${t} INTERFACE ${LUA_LIBRARY})
    target_include_directories(${t} INTERFACE
      $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}> ${LUA_INCLUDE_DIR})
  endforeach()
  add_library(gpumat::gpumat ALIAS gpumat)

  install(TARGETS gpumat gpumat_static EXPORT gpumatTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES include/gpumat.h include/gpumat_lua.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

  # gpumat.pc is relocatable (paths from ${pcfiledir}), so an install with
  # `cmake --install --prefix DIR` works wherever DIR is.
  file(RELATIVE_PATH GPUMAT_PC_TO_PREFIX
    /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
  set(GPUMAT_PC_LIBS_PRIVATE "")
  foreach(l ${GPUMAT_HOST_LIBS})
    string(APPEND GPUMAT_PC_LIBS_PRIVATE " ${l}")
  endforeach()
  # -lstdc++: the emulated device's kernels (cmake/EmulatedKernels.cmake)
  # and nvcc's objects are C++
  string(APPEND GPUMAT_PC_LIBS_PRIVATE " -lm -lpthread -lstdc++")
  # (cuBLAS, cuSOLVER, cuFFT, NVRTC and NCCL are opened on first use:
  # src/device/cuda/libs.h)
  if(GPUMAT_WITH_CUDA)
    string(APPEND GPUMAT_PC_LIBS_PRIVATE " -L${CUDAToolkit_LIBRARY_DIR} -lcudart -ldl")
  endif()
  configure_file(cmake/gpumat.pc.in ${CMAKE_BINARY_DIR}/gpumat.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/gpumat.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

  include(CMakePackageConfigHelpers)
  set(GPUMAT_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/gpumat)
  install(EXPORT gpumatTargets NAMESPACE gpumat:: DESTINATION ${GPUMAT_CMAKEDIR})
  configure_file(cmake/gpumatConfig.cmake.in ${CMAKE_BINARY_DIR}/gpumatConfig.cmake @ONLY)
  write_basic_package_version_file(${CMAKE_BINARY_DIR}/gpumatConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES ${CMAKE_BINARY_DIR}/gpumatConfig.cmake ${CMAKE_BINARY_DIR}/gpumatConfigVersion.cmake
    DESTINATION ${GPUMAT_CMAKEDIR})

  # C tests of the embedding API (gm_mat_wrap ... gpumat_checkmat) and of
  # DLPack (gm_mat_to_dlpack, gm_mat_from_dlpack) against the shared
  # library, run by spec/c_api_spec.lua.
  if(GPUMAT_BUILD_TESTS)
    foreach(t embed_api dlpack)
      add_executable(gpumat_${t}_test tests/${t}_test.c)
      target_link_libraries(gpumat_${t}_test PRIVATE gpumat m Threads::Threads)
      gpumat_warnings(gpumat_${t}_test)
      if(GPUMAT_SANITIZE)
        target_compile_options(gpumat_${t}_test PRIVATE ${GPUMAT_SAN_FLAGS})
        target_link_options(gpumat_${t}_test PRIVATE -fsanitize=address,undefined)
      endif()
    endforeach()
  endif()
endif()

# The REPL launcher (bin/gpumat, from the REPL work) when present.
if(EXISTS ${CMAKE_SOURCE_DIR}/bin/gpumat)
  install(PROGRAMS bin/gpumat DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
