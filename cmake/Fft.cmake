# The host's FFT (included from CMakeLists.txt after EmulatedKernels.cmake,
# which enables C++): src/host/fft.cpp on KISS FFT's header-only C++ class
# kissfft.hh (Debian/Ubuntu: libkissfft-dev, BSD-3-Clause; its shared
# library is float only, the template takes double too), so nothing is
# linked for it.  KISSFFT_INCLUDE_DIR may point at another copy of the
# header (e.g. a checkout of github.com/mborgerding/kissfft).
find_path(KISSFFT_INCLUDE_DIR kissfft.hh PATH_SUFFIXES kissfft)
if(NOT KISSFFT_INCLUDE_DIR)
  message(FATAL_ERROR "KISS FFT's kissfft.hh not found (Debian: libkissfft-dev; or set KISSFFT_INCLUDE_DIR)")
endif()
target_sources(gpumat_base_objs PRIVATE src/host/fft.cpp)
set_target_properties(gpumat_base_objs PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF
  CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
# SYSTEM: the library's header is not held to our warnings
target_include_directories(gpumat_base_objs SYSTEM PRIVATE ${KISSFFT_INCLUDE_DIR})
# -fcx-limited-range: std::complex's product as the plain formula, not
# C99 Annex G's call (__muldc3) that recovers infinities from NaN parts:
# KISS FFT's butterflies are complex products, and NumPy's pocketfft
# computes them plainly too (a transform of infinities gives NaN on both)
set_source_files_properties(src/host/fft.cpp PROPERTIES COMPILE_OPTIONS
  "-O3;-fno-math-errno;-fno-trapping-math;-fcx-limited-range")
target_compile_options(gpumat_base_objs PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>)
if(GPUMAT_WERROR)
  target_compile_options(gpumat_base_objs PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
message(STATUS "gpumat: host FFT: KISS FFT (${KISSFFT_INCLUDE_DIR}/kissfft.hh)")

# GPUMAT_FFTW: the host's FFT on FFTW 3 (src/host/fftw.c) instead of KISS
# FFT.  Off by default: FFTW is GPL (Debian: libfftw3-dev), so a build
# with it is covered by the GPL, while gpumat is MIT.  KISS FFT stays in
# the build for layouts beyond FFTW's int sizes.
option(GPUMAT_FFTW "Host FFT on FFTW 3 (GPL) instead of KISS FFT" OFF)
if(GPUMAT_FFTW)
  find_path(FFTW3_INCLUDE_DIR fftw3.h)
  find_library(FFTW3_LIB NAMES fftw3)
  find_library(FFTW3F_LIB NAMES fftw3f)
  if(NOT FFTW3_INCLUDE_DIR OR NOT FFTW3_LIB OR NOT FFTW3F_LIB)
    message(FATAL_ERROR "GPUMAT_FFTW: FFTW 3 (double and float) not found (Debian: libfftw3-dev)")
  endif()
  target_sources(gpumat_base_objs PRIVATE src/host/fftw.c)
  target_include_directories(gpumat_base_objs SYSTEM PRIVATE ${FFTW3_INCLUDE_DIR})
  set_property(SOURCE src/host/fft.cpp APPEND PROPERTY COMPILE_DEFINITIONS GPUMAT_HAVE_FFTW=1)
  list(APPEND GPUMAT_HOST_LIBS ${FFTW3_LIB} ${FFTW3F_LIB})
  list(APPEND GPUMAT_LINK_LIBS ${FFTW3_LIB} ${FFTW3F_LIB})
  message(STATUS "gpumat: host FFT: FFTW 3 (GPL; ${FFTW3_LIB})")
endif()
