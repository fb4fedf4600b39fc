# Lua 5.4 headers (the module does not link liblua: the interpreter provides
# the symbols), OpenBLAS (CBLAS) and LAPACKE, pthreads.
find_package(Threads REQUIRED)
find_path(LUA_INCLUDE_DIR lua.h
  PATHS /usr/include/lua5.4 /usr/local/include/lua5.4 /usr/local/include
  NO_DEFAULT_PATH)
if(NOT LUA_INCLUDE_DIR)
  message(FATAL_ERROR "Lua 5.4 headers not found (Debian: liblua5.4-dev)")
endif()
find_library(OPENBLAS_LIB NAMES openblas)
find_path(CBLAS_INCLUDE_DIR cblas.h PATHS /usr/include/x86_64-linux-gnu/openblas-pthread /usr/include/openblas /usr/include)
find_library(LAPACKE_LIB NAMES lapacke)
find_path(LAPACKE_INCLUDE_DIR lapacke.h)
if(NOT OPENBLAS_LIB OR NOT CBLAS_INCLUDE_DIR OR NOT LAPACKE_LIB OR NOT LAPACKE_INCLUDE_DIR)
  message(FATAL_ERROR "OpenBLAS/LAPACKE not found (Debian: libopenblas-dev liblapacke-dev)")
endif()
set(GPUMAT_HOST_LIBS ${LAPACKE_LIB} ${OPENBLAS_LIB})
# glibc's vector math library (2.35+ for tanh): the host elementwise loops
# call its SIMD exp/log/tanh/sin... (src/host/elementwise.c) instead of
# libm once per element; without it they stay on libm.
include(CheckLibraryExists)
find_library(MVEC_LIB NAMES mvec)
if(MVEC_LIB AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND CMAKE_C_COMPILER_ID STREQUAL "GNU")
  check_library_exists(mvec _ZGVbN2v_tanh "" GPUMAT_HAVE_MVEC)
endif()
if(GPUMAT_HAVE_MVEC)
  list(APPEND GPUMAT_HOST_LIBS ${MVEC_LIB})
  set_property(SOURCE src/host/elementwise.c src/host/strided_ew.c APPEND PROPERTY COMPILE_DEFINITIONS GPUMAT_HAVE_MVEC=1)
endif()
include_directories(SYSTEM ${CBLAS_INCLUDE_DIR} ${LAPACKE_INCLUDE_DIR})
if(GPUMAT_CUDA)
  find_package(CUDAToolkit QUIET)
endif()

# NCCL (gpumat.dist's device collectives): NCCL_ROOT (CMake variable or
# environment) first, then the CUDA toolkit, the usual system places and
# python3's nvidia/nccl (the nvidia-nccl-cu* wheel that CuPy and PyTorch
# bring: where the GPU machines have it; only libnccl.so.2 there).
# Without it device collectives would silently go through the host, so
# the configure step says which NCCL it found, or why none.
function(gpumat_find_nccl)
  set(py_nccl "")
  find_program(GPUMAT_PYTHON3 python3)
  if(GPUMAT_PYTHON3)
    execute_process(COMMAND ${GPUMAT_PYTHON3} -c
      "import importlib.util as u; s = u.find_spec('nvidia.nccl'); print(list(s.submodule_search_locations)[0] if s else '')"
      OUTPUT_VARIABLE py_nccl OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET TIMEOUT 30)
  endif()
  set(roots ${NCCL_ROOT} $ENV{NCCL_ROOT} $ENV{NCCL_HOME} ${CUDAToolkit_LIBRARY_ROOT} /usr/local/cuda /usr ${py_nccl})
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${roots} ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
  find_library(NCCL_LIB NAMES nccl libnccl.so.2 HINTS ${roots} ${CUDAToolkit_LIBRARY_DIR}
    PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)
  if(NOT NCCL_INCLUDE_DIR OR NOT NCCL_LIB)
    message(STATUS "gpumat: NCCL not found (set NCCL_ROOT): device collectives will run through MPI on the host")
  endif()
endfunction()
