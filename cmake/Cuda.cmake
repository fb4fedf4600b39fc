# The CUDA backend: kernels/*.cu compiled by nvcc for sm_80 and sm_90 plus
# PTX (compute_90) for newer GPUs, and src/device/cuda linked against
# cudart, cuBLAS, cuSOLVER and NVRTC (cuRAND's device
# API is header-only).  Compiled on every build, so a CUDA
# compile error fails CI even though no machine here has a GPU.
if(NOT CMAKE_CUDA_COMPILER)
  set(CMAKE_CUDA_COMPILER ${CUDAToolkit_NVCC_EXECUTABLE})
endif()
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 80-real 90-real 90-virtual)
endif()
enable_language(CUDA)
file(GLOB GPUMAT_CU_SOURCES CONFIGURE_DEPENDS kernels/*.cu)
file(GLOB GPUMAT_CUDA_C_SOURCES CONFIGURE_DEPENDS src/device/cuda/*.c)
add_library(gpumat_kernels STATIC ${GPUMAT_CU_SOURCES})
# The shared cudart, as gpumat_core links it: with CMake's default (Static)
# the module's link line held both libcudart.so and libcudart_static.a, and
# a link-order change would give two runtimes with separate last-error
# slots (review #13).
set_target_properties(gpumat_kernels PROPERTIES POSITION_INDEPENDENT_CODE ON CUDA_STANDARD 17
  CUDA_RUNTIME_LIBRARY Shared)
target_include_directories(gpumat_kernels PRIVATE kernels)
target_compile_options(gpumat_kernels PRIVATE
  $<$<COMPILE_LANGUAGE:CUDA>:--Werror=all-warnings -Xcompiler=-Wall,-Wextra>)
if(GPUMAT_WERROR)
  target_compile_options(gpumat_kernels PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Werror>)
endif()
set_target_properties(gpumat_core PROPERTIES CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
target_sources(gpumat_core PRIVATE ${GPUMAT_CUDA_C_SOURCES})
target_link_libraries(gpumat_core PRIVATE gpumat_kernels
  CUDA::cudart CUDA::cublas CUDA::cusolver CUDA::nvrtc)
# core.so finds the toolkit's libraries where CMake found them (review #2:
# without a RUNPATH `require "gpumat"` failed on a machine whose loader
# path holds only another toolkit's libcudart).  RUNPATH, not RPATH, so
# LD_LIBRARY_PATH still wins.
set_target_properties(gpumat_core PROPERTIES
  BUILD_RPATH "${CUDAToolkit_LIBRARY_DIR}" INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
target_link_options(gpumat_core PRIVATE "LINKER:--enable-new-dtags")
target_compile_definitions(gpumat_core PRIVATE GPUMAT_HAVE_CUDA=1)
message(STATUS "gpumat: CUDA backend enabled (${CMAKE_CUDA_ARCHITECTURES})")
