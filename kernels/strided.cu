// CUDA strided copy kernel and its extern "C" launcher: the gather and
// scatter of non-contiguous operands (kernels/strided.h).  One thread per
// element in a grid-stride loop (a range launch, launch_cuda.cuh); the innermost axis is the fastest so that
// neighbouring threads touch neighbouring elements of the contiguous side.
#include <cuda_runtime.h>

#include "int_ops.h"
#include "launch_cuda.cuh"
#include "strided.h"

template <typename T>
__global__ void gm_strided_copy_kernel(gm_strided_geom g, const T *src, T *dst) {
  GRID_STRIDE(k, g.n) {
    int64_t so, d;
    gm_strided_offsets(&g, k, &so, &d);
    dst[d] = src[so];
  }
}

extern "C" int gm_cuda_strided_copy(int ctype, const gm_strided_geom *g, const void *src, void *dst, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  gm_launch l(g->n, stream);
#define LAUNCH(T) GM_LAUNCH_RANGE(gm_strided_copy_kernel<T>, l.grid, l.block, l.s, g->n, 1)(*g, (const T *)(src), (T *)(dst))
  GM_ANY_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}

// Conversion between element types (astype on the device, and the
// promotion of mixed operands, core/model/mat.c): the host's rules
// (src/core/ops/convert.c, kernels/int_ops.h) element by element: a float
// source saturates into an integer (gm_sat_to), an integer source
// converts as C does (wrapping into narrower integers, exact or rounded
// into floats, x != 0 into bool), a bool source reads its byte as
// nonzero (buffers may hold other bytes than 0 and 1); a complex
// destination takes a real value with imaginary part 0, a real one a
// complex value's real part (NumPy's astype).
template <typename D> struct gm_conv_dst {
  template <typename S> __device__ static D from(S x) { return (D)x; }
};
template <> struct gm_conv_dst<gm_complex64> {
  template <typename S> __device__ static gm_complex64 from(S x) { return gm_cxmake_gm_complex64((float)x, 0.0f); }
};
template <> struct gm_conv_dst<gm_complex128> {
  template <typename S> __device__ static gm_complex128 from(S x) { return gm_cxmake_gm_complex128((double)x, 0.0); }
};
// a 16-bit float destination: an integer source rounds once (a uint64
// above 2^53 keeps a sticky bit, half_ops.h); float sources go through
// gm_sat_to below
template <typename S> __device__ inline double gm_conv_int_double(S x) {
  return (S)(-1) > (S)0 ? gm_half_ull_to_double((unsigned long long)x) : gm_half_ll_to_double((long long)x);
}
template <> struct gm_conv_dst<gm_float16> {
  template <typename S> __device__ static gm_float16 from(S x) { return gm_sat_gm_float16(gm_conv_int_double(x)); }
};
template <> struct gm_conv_dst<gm_bfloat16> {
  template <typename S> __device__ static gm_bfloat16 from(S x) {
    return gm_sat_gm_bfloat16(gm_conv_int_double(x));
  }
};
// a complex source: to a real D its real part (as a float source), to a
// complex one both parts
template <typename D> struct gm_conv_cx {
  template <typename Z> __device__ static D from(Z z) { return gm_sat_to<D>((double)z.re); }
};
template <> struct gm_conv_cx<gm_complex64> {
  template <typename Z> __device__ static gm_complex64 from(Z z) {
    return gm_cxmake_gm_complex64((float)z.re, (float)z.im);
  }
};
template <> struct gm_conv_cx<gm_complex128> {
  template <typename Z> __device__ static gm_complex128 from(Z z) {
    return gm_cxmake_gm_complex128((double)z.re, (double)z.im);
  }
};
template <typename S> struct gm_conv_src {
  typedef S L;
  template <typename D> __device__ static D to(S x) { return gm_conv_dst<D>::from(x); }
};
template <> struct gm_conv_src<bool> {
  typedef unsigned char L;
  template <typename D> __device__ static D to(unsigned char x) { return gm_conv_dst<D>::from(x != 0); }
};
template <> struct gm_conv_src<gm_complex64> {
  typedef gm_complex64 L;
  template <typename D> __device__ static D to(gm_complex64 x) { return gm_conv_cx<D>::from(x); }
};
template <> struct gm_conv_src<gm_complex128> {
  typedef gm_complex128 L;
  template <typename D> __device__ static D to(gm_complex128 x) { return gm_conv_cx<D>::from(x); }
};
// a 16-bit float source: its exact value as a float source
template <> struct gm_conv_src<gm_float16> {
  typedef gm_float16 L;
  template <typename D> __device__ static D to(gm_float16 x) { return gm_sat_to<D>((double)gm_hload_gm_float16(x)); }
};
template <> struct gm_conv_src<gm_bfloat16> {
  typedef gm_bfloat16 L;
  template <typename D> __device__ static D to(gm_bfloat16 x) {
    return gm_sat_to<D>((double)gm_hload_gm_bfloat16(x));
  }
};
// a float source: through a double (exact) as astype's rule, but into a
// 16-bit float directly (one rounding either way; the compute engine's
// stores of half results, core/ops/half.c, take this path)
template <typename D> __device__ inline D gm_conv_from_float(float x) { return gm_sat_to<D>((double)x); }
template <> __device__ inline gm_float16 gm_conv_from_float<gm_float16>(float x) { return gm_hstore_gm_float16(x); }
template <> __device__ inline gm_bfloat16 gm_conv_from_float<gm_bfloat16>(float x) {
  return gm_hstore_gm_bfloat16(x);
}
template <> struct gm_conv_src<float> {
  typedef float L;
  template <typename D> __device__ static D to(float x) { return gm_conv_from_float<D>(x); }
};
template <> struct gm_conv_src<double> {
  typedef double L;
  template <typename D> __device__ static D to(double x) { return gm_sat_to<D>(x); }
};

// the pair of types as one template argument (launch sites take no comma)
template <typename D> struct gm_conv_to {
  template <typename S> struct from {
    typedef D Dst;
    typedef S Src;
  };
};

template <class P>
__global__ void gm_convert_kernel(size_t n, const typename gm_conv_src<typename P::Src>::L *src,
                                  typename P::Dst *dst) {
  GRID_STRIDE(k, n) { dst[k] = gm_conv_src<typename P::Src>::template to<typename P::Dst>(src[k]); }
}

// the destination switch for source type S (a template, so the ctype
// list is not expanded inside itself)
template <typename S>
int gm_convert_from(int dctype, size_t n, const void *src, void *dst, void *stream) {
  gm_launch l(n, stream);
  typedef typename gm_conv_src<S>::L L;
#define LAUNCH(D)                                                                                        \
  GM_LAUNCH_RANGE(gm_convert_kernel<typename gm_conv_to<D>::template from<S>>, l.grid, l.block, l.s, n, 1)( \
      n, (const L *)(src), (D *)(dst))
  GM_ANY_CTYPE_LAUNCH(dctype, LAUNCH);
#undef LAUNCH
}

extern "C" int gm_cuda_convert(int dctype, void *dst, int sctype, const void *src, size_t n, const gm_launch_ctx *lc) {
  if (n == 0) return 0;
#define FROM(S) return gm_convert_from<S>(dctype, n, src, dst, lc->stream)
  switch (sctype) {
    GM_CTYPES_WITH(GM_CTYPE_DO_CASE_, FROM)
    default: break;
  }
#undef FROM
  return (int)cudaErrorInvalidValue;
}
