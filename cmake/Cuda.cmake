# The CUDA backend (included from CMakeLists.txt; sets GPUMAT_LINK_*):
# kernels/*.cu compiled by nvcc for sm_80 and sm_90 plus
# PTX (compute_90) for newer GPUs, and src/device/cuda linked against
# cudart only: cuBLAS, cuSOLVER, cuFFT and NVRTC (and NCCL) are opened on
# first use (src/device/cuda/libs.h: linked, they made `require "gpumat"`
# 235 MB resident without a GPU), by the sonames found here (cuRAND's
# device API is header-only).  Compiled on every build, so a CUDA
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
add_library(gpumat_kernels OBJECT ${GPUMAT_CU_SOURCES})
# hidden: the launchers are internal to the module and libgpumat
# Shared cudart: one runtime and one last-error slot, never
# libcudart_static.a next to libcudart.so.
set_target_properties(gpumat_kernels PROPERTIES POSITION_INDEPENDENT_CODE ON CUDA_STANDARD 17
  CUDA_VISIBILITY_PRESET hidden CUDA_RUNTIME_LIBRARY Shared)
target_include_directories(gpumat_kernels PRIVATE kernels)
target_compile_options(gpumat_kernels PRIVATE
  $<$<COMPILE_LANGUAGE:CUDA>:--Werror=all-warnings -Xcompiler=-Wall,-Wextra>)
if(GPUMAT_WERROR)
  target_compile_options(gpumat_kernels PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Werror>)
endif()
# targets made before this file was included (later ones inherit it)
set_target_properties(gpumat_core PROPERTIES CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
target_sources(gpumat_objs PRIVATE ${GPUMAT_CUDA_C_SOURCES})
target_compile_definitions(gpumat_objs PRIVATE GPUMAT_HAVE_CUDA=1)
# (for the objects only the usage requirements count: CUDA include dirs)
target_link_libraries(gpumat_objs PRIVATE CUDA::cudart CUDA::cublas CUDA::cusolver CUDA::cufft CUDA::nvrtc)
# The soname in a shared library's dynamic section (what its DT_NEEDED
# entry would have named), else the file's own name.
function(gpumat_soname out lib)
  get_filename_component(real ${lib} REALPATH)
  execute_process(COMMAND ${CMAKE_OBJDUMP} -p ${real} OUTPUT_VARIABLE dump ERROR_QUIET)
  if(dump MATCHES "SONAME +([^ \n]+)")
    set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
  else()
    get_filename_component(name ${lib} NAME)
    message(WARNING "gpumat: no SONAME read from ${lib} (objdump: '${CMAKE_OBJDUMP}'); opening it as ${name}")
    set(${out} ${name} PARENT_SCOPE)
  endif()
endfunction()
# GPUMAT_<LIB>_SONAME and GPUMAT_<LIB>_DIR for libs.c (the loader tries
# the soname through the loader's path first, then DIR/soname).
function(gpumat_dynlib name lib)
  gpumat_soname(soname ${lib})
  get_filename_component(dir ${lib} DIRECTORY)
  set_property(SOURCE src/device/cuda/libs.c APPEND PROPERTY COMPILE_DEFINITIONS
    "GPUMAT_${name}_SONAME=\"${soname}\"" "GPUMAT_${name}_DIR=\"${dir}\"")
  message(STATUS "gpumat: ${name} opened on first use as ${soname} (else ${dir}/${soname})")
endfunction()
foreach(l cublas cusolver cufft nvrtc)
  string(TOUPPER ${l} name)
  gpumat_dynlib(${name} ${CUDA_${l}_LIBRARY})
endforeach()
# every linked target (module, libgpumat.so, libgpumat.a) carries the kernels
list(APPEND GPUMAT_LINK_OBJECTS $<TARGET_OBJECTS:gpumat_kernels>)
# (stdc++: nvcc's objects use the C++ runtime, and C links without it)
list(APPEND GPUMAT_LINK_LIBS CUDA::cudart stdc++ "-Wl,--enable-new-dtags")
# Linked targets find the toolkit's libraries where CMake found them
# (without a RUNPATH `require "gpumat"` failed on a machine whose
# loader path holds only another toolkit's libcudart).  RUNPATH (new dtags),
# so LD_LIBRARY_PATH still wins.  gpumat_core exists already; later targets
# (libgpumat) take the CMAKE_* defaults.
set(CMAKE_BUILD_RPATH "${CUDAToolkit_LIBRARY_DIR}")
set(CMAKE_INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
set_target_properties(gpumat_core PROPERTIES
  BUILD_RPATH "${CUDAToolkit_LIBRARY_DIR}" INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
set(GPUMAT_WITH_CUDA ON)
message(STATUS "gpumat: CUDA backend enabled (${CMAKE_CUDA_ARCHITECTURES})")
