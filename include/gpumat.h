/* gpumat public C API, for applications that embed Lua or use mats from C.
 *
 * Conventions (unlike the Lua API): indices are 0-based, every function
 * returns a gm_status (GM_OK on success) and never longjmps; on failure
 * gm_last_error() holds a message for the calling thread and no argument
 * has been modified.  Mats are views on reference-counted storage: a
 * gm_mat* obtained from gm_mat_new()/gm_mat_view() is owned by the caller
 * and released with gm_mat_free(). */
#ifndef GPUMAT_H
#define GPUMAT_H

#include <stddef.h>
#include <stdint.h>

/* ---- DLPack (gm_mat_to_dlpack, gm_mat_from_dlpack) ----
 * The exchange structs are DLPack 1.x's (DLManagedTensorVersioned).  The
 * system's <dlpack/dlpack.h> is used when there is one, so an application
 * that includes it too (or PyTorch's, CuPy's copy: one include guard)
 * sees the same types; Debian's libdlpack-dev is 0.6, older than the
 * versioned struct, so what a header lacks is defined here with 1.x's
 * exact layout and values, and with no header at all, the whole 1.x ABI
 * gpumat uses.  Define GPUMAT_NO_SYSTEM_DLPACK to skip the system header. */
#if !defined(GPUMAT_NO_SYSTEM_DLPACK) && defined(__has_include)
#if __has_include(<dlpack/dlpack.h>)
#include <dlpack/dlpack.h>
#endif
#endif
#ifdef __cplusplus
extern "C" { /* as dlpack.h: the deleter is a C function pointer */
#endif
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_ /* no header: DLPack 1.1's types (a later include of one is skipped) */
#define GPUMAT_DLPACK_OWN 1
typedef enum {
  kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLOpenCL = 4, kDLVulkan = 7, kDLMetal = 8, kDLVPI = 9,
  kDLROCM = 10, kDLROCMHost = 11, kDLExtDev = 12, kDLCUDAManaged = 13, kDLOneAPI = 14, kDLWebGPU = 15,
  kDLHexagon = 16, kDLMAIA = 17
} DLDeviceType;
typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;
typedef enum {
  kDLInt = 0U, kDLUInt = 1U, kDLFloat = 2U, kDLOpaqueHandle = 3U, kDLBfloat = 4U, kDLComplex = 5U, kDLBool = 6U
} DLDataTypeCode;
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;
typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides; /* in elements; NULL: compact row-major */
  uint64_t byte_offset;
} DLTensor;
#elif !defined(DLPACK_MAJOR_VERSION) && defined(DLPACK_VERSION) && DLPACK_VERSION < 80
enum { kDLBool = 6 }; /* added in DLPack 0.8 */
#endif
#ifndef DLPACK_MAJOR_VERSION /* a 0.x header: the versioned struct of 1.x */
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned *self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;
#endif
#ifdef GPUMAT_DLPACK_OWN
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 1
#endif
#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define GPUMAT_VERSION "0.1.0"
#define GM_MAX_RANK 8

/* Functions of this header are the library's exported symbols (the rest
 * of gpumat is compiled with hidden visibility). */
#if defined(__GNUC__)
#define GM_API __attribute__((visibility("default")))
#else
#define GM_API
#endif

typedef enum gm_status {
  GM_OK = 0,
  GM_EINVAL,        /* bad argument */
  GM_ERANGE,        /* index, size or displacement out of range */
  GM_ENOMEM,        /* host allocation failed */
  GM_ESTATE,        /* facet access conflicts with an active access */
  GM_EUNSUPPORTED,  /* feature not available in this build/machine */
  GM_EIO,           /* file I/O or format error */
  GM_ECUDA_OOM,     /* device allocation failed after reclaiming */
  GM_ECUDA,         /* CUDA runtime error */
  GM_ECUBLAS,       /* cuBLAS error */
  GM_ECURAND,       /* cuRAND error */
  GM_ENVRTC,        /* NVRTC compile error */
  GM_ELAPACK,       /* LAPACK reported failure (e.g. singular matrix) */
  GM_EMPI,          /* MPI error (gpumat.dist) */
  GM_ENCCL          /* NCCL error (gpumat.dist on CUDA devices) */
} gm_status;

/* Message of the last failure on this thread. */
GM_API const char *gm_last_error(void);
/* Symbolic name of a status ("invalid_argument", "cuda_out_of_memory", ...). */
GM_API const char *gm_status_name(gm_status st);

typedef struct gm_mat gm_mat;

/* Element types (gm_mat_options.ctype, gm_mat_wrap, gm_mat_ctype). */
enum {
  GM_CTYPE_FLOAT = 0,
  GM_CTYPE_DOUBLE = 1,
  GM_CTYPE_BOOL = 2, /* C bool: one byte, 0 or 1 */
  GM_CTYPE_INT8 = 3,
  GM_CTYPE_INT16 = 4,
  GM_CTYPE_INT32 = 5,
  GM_CTYPE_INT64 = 6,
  GM_CTYPE_UINT8 = 7,
  GM_CTYPE_UINT16 = 8,
  GM_CTYPE_UINT32 = 9,
  GM_CTYPE_UINT64 = 10,
  GM_CTYPE_COMPLEX64 = 11, /* two floats, real part first (NumPy's complex64) */
  GM_CTYPE_COMPLEX128 = 12, /* two doubles, real part first */
  GM_CTYPE_FLOAT16 = 13,    /* IEEE binary16 bits (uint16_t; NumPy's float16) */
  GM_CTYPE_BFLOAT16 = 14    /* bfloat16 bits: a float32's upper 16 bits, rounded */
};

/* Facets (the cube manual's names): FOREIGN is host memory, CUDA_HOST the
 * same host memory page-locked, CUDA device memory, MANAGED managed
 * memory (only mats made over it, with mat_from_buffer in Lua). */
typedef enum gm_facet_name {
  GM_FACET_FOREIGN = 0,
  GM_FACET_CUDA_HOST,
  GM_FACET_CUDA,
  GM_FACET_MANAGED,
  GM_N_FACETS
} gm_facet_name;

/* INPUT reads (copies in when stale); OUTPUT overwrites every visible
 * element (nothing copied in; other facets become stale); IO both. */
typedef enum gm_direction { GM_INPUT = 0, GM_OUTPUT, GM_IO } gm_direction;

typedef enum gm_sync { GM_SYNC_FALSE = 0, GM_SYNC_TRUE = 1, GM_SYNC_MAYBE = 2 } gm_sync;

/* Options of gm_mat_new; zero-initialise and set what you need. */
typedef struct gm_mat_options {
  int ctype;                /* GM_CTYPE_FLOAT, GM_CTYPE_DOUBLE, ... (gm_ctype) */
  size_t displacement;
  size_t max_size;          /* 0 = displacement + size */
  int has_initial_element;  /* 0: storage is not initialised */
  double initial_element;
  int cuda_enabled;
  gm_sync synchronization;
} gm_mat_options;

/* Creates a mat of rank dims (rank 0..GM_MAX_RANK). No memory is allocated
 * until a facet is first accessed. */
GM_API gm_status gm_mat_new(int rank, const size_t *dims, const gm_mat_options *opts,
                     gm_mat **out);
/* A new view on m's storage with the given shape and absolute displacement. */
GM_API gm_status gm_mat_view(const gm_mat *m, int rank, const size_t *dims,
                      size_t displacement, gm_mat **out);
/* Drops this view's reference to the storage (NULL is fine). */
GM_API void gm_mat_free(gm_mat *m);

GM_API int gm_mat_rank(const gm_mat *m);
GM_API size_t gm_mat_dim(const gm_mat *m, int axis);
GM_API size_t gm_mat_size(const gm_mat *m);
GM_API size_t gm_mat_displacement(const gm_mat *m);
GM_API size_t gm_mat_max_size(const gm_mat *m);
/* 1 and *out the value the storage starts with, or 0 when it is left
 * uninitialised (gm_mat_options.has_initial_element). */
GM_API int gm_mat_initial_element(const gm_mat *m, double *out);
GM_API int gm_mat_ctype(const gm_mat *m);

/* Element access through the host ("foreign") facet, 0-based row-major index. */
GM_API gm_status gm_mat_get(gm_mat *m, size_t row_major_index, double *out);
GM_API gm_status gm_mat_put(gm_mat *m, size_t row_major_index, double value);

/* What gm_mat_to_string shows; pass NULL for the Lua defaults (contents,
 * facets, max_elements 1000) or set every field. */
typedef struct gm_print_options {
  int contents;      /* nonzero: the elements (gm.print_mat) */
  int facets;        /* nonzero: the facet letters (gm.print_mat_facets) */
  long max_elements; /* larger mats print summarized (gm.print_max_elements); negative: never */
} gm_print_options;
/* tostring(m) for C, "#<MAT 2x3 double CF {{1, 2, 3}, {4, 5, 6}}>", as a
 * new NUL-terminated string *out released with gm_string_free.  Like
 * printing in Lua it never creates a facet nor changes up-to-date state
 * (a current device copy is read into a temporary host buffer). */
GM_API gm_status gm_mat_to_string(gm_mat *m, const gm_print_options *opts, char **out);
/* Frees a string from gm_mat_to_string (NULL is fine). */
GM_API void gm_string_free(char *s);

/* ---- Embedding: application memory, facet access, contexts ---- */

/* Called exactly once with the ud given to gm_mat_wrap, when the last
 * view of the wrapped storage goes (gm_mat_free, a Lua mat collected or
 * freed, views made by gm_mat_view or by Lua shaping functions). It may
 * run on any thread that drops the last view, including inside a Lua
 * finalizer: it must not call Lua. */
typedef void (*gm_release_fn)(void *ud);

/* A mat over an application's host memory, without a copy: data holds
 * size(dims) elements of ctype, row-major, and becomes the mat's
 * `foreign` facet (up to date, never freed by gpumat nor destroyed by
 * destroy_facet; device facets are copied back into it).  release may be
 * NULL.  The mat is cuda-enabled, synchronization "maybe".  On failure
 * release is NOT called: the memory still belongs to the caller. */
GM_API gm_status gm_mat_wrap(void *data, int ctype, int rank, const size_t *dims, gm_release_fn release,
                             void *ud, gm_mat **out);

/* Raw access to one facet (watch/unwatch of the cube manual): *ptr is
 * m's first visible element in that facet's memory (a device address for
 * GM_FACET_CUDA, which needs an active context on a device).  Directions
 * and conflicts as in with_facet: GM_ESTATE while another facet is being
 * written, etc.  Every successful begin must be ended on the same thread
 * with gm_mat_end_access(m, facet), innermost first; at most 64 accesses
 * may be open per thread.  Do not free, reshape or use m in gpumat
 * operations between the two. */
GM_API gm_status gm_mat_begin_access(gm_mat *m, gm_facet_name facet, gm_direction direction, void **ptr);
GM_API gm_status gm_mat_end_access(gm_mat *m, gm_facet_name facet);

/* with_facets for C: several facets (of one or more mats) accessed at
 * once, all or none.  specs[i] names a mat, a facet and a direction;
 * ptrs[i] receives its pointer.  Every facet but GM_FACET_FOREIGN needs an
 * active context on a device (GM_ESTATE otherwise); at most 64 specs.
 * When one access fails, those already made are ended and its status is
 * returned (*out untouched).  A cuda pointer is ready for kernels on any
 * stream (gpumat's queued work on it is waited for), and gm_facets_end
 * waits for the device, so gpumat's next operations see what was written.
 * The accesses hold the storage: the mats may be freed before
 * gm_facets_end, which ends them last first and frees the handle. */
typedef struct gm_facet_spec {
  gm_mat *mat;
  gm_facet_name facet;
  gm_direction direction;
} gm_facet_spec;
typedef struct gm_access gm_access;
GM_API gm_status gm_facets_begin(const gm_facet_spec *specs, int n, void **ptrs, gm_access **out);
GM_API void gm_facets_end(gm_access *a);

/* Options of gm_cuda_begin; zero-initialise (or pass NULL) for defaults. */
typedef struct gm_cuda_options {
  int disabled;          /* nonzero: a context with cuda disabled (ops on the host) */
  const char *backend;   /* "cuda" or "emulated"; NULL: $GPUMAT_DEVICE, else "cuda" */
  int device_id;         /* 0..63 */
  unsigned long long random_seed; /* 0: 1234 */
  int n_random_states;   /* 0: 4096; rounded up to a multiple of 32 */
  size_t n_pool_bytes;   /* device pool limit; 0: none */
} gm_cuda_options;

/* with_cuda for C: enters a context on this thread; operations on
 * cuda-enabled mats then run on the device when one is usable (on the
 * host otherwise, as with_cuda does without a GPU).  gm_cuda_end exits
 * the innermost context begun with gm_cuda_begin (GM_ESTATE if none, or
 * if a Lua with_cuda context opened later is still active): host facets
 * are brought up to date, device facets created inside are destroyed. */
GM_API gm_status gm_cuda_begin(const gm_cuda_options *opts);
GM_API gm_status gm_cuda_end(void);
/* Whether the calling thread's operations currently run on a device. */
GM_API int gm_cuda_active(void);

/* ---- DLPack: mats to and from PyTorch, CuPy, JAX, NumPy without a copy ----
 * The structs are DLPack 1.x's (top of this header).  Producer and
 * consumer share the memory, as the DLPack standard says.
 *
 * gm_mat_to_dlpack: *out describes m's elements where they are: the
 * first visible element, m's dims and strides in elements (views
 * included; an expanded view is flagged READ_ONLY), m's element type
 * (bool kDLBool, integers kDLInt/kDLUInt, floats kDLFloat, bits 8 * size)
 * and device: kDLCPU for host memory, kDLCUDAHost for page-locked,
 * kDLCUDAManaged for managed, kDLCUDA (device id) for a CUDA device.
 * opts->device picks the facet: GM_DLPACK_WHERE (0) the cuda facet when
 * only it is current on a CUDA device, else the host; GM_DLPACK_HOST;
 * GM_DLPACK_CUDA (needs an active context on a CUDA device; the emulated
 * device's memory is not CUDA memory: GM_EUNSUPPORTED).  The facet is
 * brought up to date as with_facet(m, facet, "io") would, so it is then
 * the only current one: the consumer's writes are what gpumat reads next,
 * as long as m is used through that facet (an operation that writes m in
 * another facet makes the exported memory stale until that facet is
 * accessed again).  gpumat's queued device work on it has finished.
 * opts->copy GM_DLPACK_COPY_ALWAYS exports a new row-major copy (flag
 * IS_COPIED) that only the consumer sees; _IF_NEEDED (0) and _NEVER share
 * m's memory (an export never needs a copy).  opts->dl_device_type (0:
 * none), with opts->dl_device_id, is the array API's dl_device, in place
 * of opts->device (which must then be GM_DLPACK_WHERE): kDLCPU the host
 * facet (page-locked memory reported as kDLCPU), kDLCUDA the cuda facet
 * of that device, kDLCUDAHost and kDLCUDAManaged m's memory when it is of
 * that kind; anything else GM_EUNSUPPORTED.  opts->stream is the array
 * API's stream (0: none given): on a CUDA export gpumat's queued work is
 * finished first unless it is -1 (1, 2 and a consumer's stream alike: the
 * whole compute stream is synchronized); a kDLCPU export takes 0 or -1
 * only (GM_EINVAL).  The export holds m's storage and that facet
 * (destroy_facet and context exits skip it) until its deleter runs, which
 * may be before or after gm_mat_free(m), on any thread; the consumer
 * calls (*out)->deleter(*out) exactly once.  opts NULL: all defaults.
 *
 * gm_mat_from_dlpack: a mat over t's memory, without a copy: t's shape,
 * and its strides as a view (any strides, negative or zero included, that
 * stay inside the memory; NULL strides: row-major).  kDLCPU and
 * kDLCUDAHost memory becomes the host ("foreign") facet, kDLCUDAManaged
 * the managed facet inside a context on a CUDA device (else the host
 * facet), kDLCUDA the cuda facet (needs an active context on that
 * device).  The mat's storage calls t->deleter(t) exactly once when its
 * last view goes (gm_mat_free, a Lua mat collected; for device and managed
 * memory after the device's queued work, when the device's deferred frees
 * are next drained: gm_cuda_end, gm.collect()); a tensor without elements
 * is released at once.  The producer's work on the memory must be
 * complete (DLPack without a stream).  Refused with t still the caller's
 * (its deleter not called): a major version other than 1, the READ_ONLY
 * flag (mats are writable), lanes != 1 or a dtype no ctype has, another
 * device type, misaligned data, more than GM_MAX_RANK dimensions.
 *
 * gm_mat_from_dlpack_opts: the array API's from_dlpack(x, device, copy).
 * opts->copy: _NEVER as gm_mat_from_dlpack; _IF_NEEDED (0, opts NULL)
 * shares the memory, but a READ_ONLY tensor is copied (a new row-major
 * mat; the tensor's deleter runs once the copy is made); _ALWAYS copies.
 * opts->dl_device_type (0: where the tensor is) must be the tensor's
 * device (kDLCPU also takes page-locked and managed memory): gpumat moves
 * no tensor between devices (GM_EUNSUPPORTED).  opts->device and
 * opts->stream must be 0.  Refused with t still the caller's. */
struct DLManagedTensorVersioned;
enum { GM_DLPACK_WHERE = 0, GM_DLPACK_HOST = 1, GM_DLPACK_CUDA = 2 };
enum { GM_DLPACK_COPY_IF_NEEDED = 0, GM_DLPACK_COPY_ALWAYS = 1, GM_DLPACK_COPY_NEVER = 2 };
typedef struct gm_dlpack_options {
  int device;             /* export: GM_DLPACK_WHERE, GM_DLPACK_HOST, GM_DLPACK_CUDA */
  int copy;               /* GM_DLPACK_COPY_IF_NEEDED (0), _ALWAYS (1), _NEVER (2) */
  int64_t stream;         /* export: the consumer's stream (0: none given; -1: no synchronization) */
  int32_t dl_device_type; /* the DLPack device asked for (0: none), and its id */
  int32_t dl_device_id;
} gm_dlpack_options;
GM_API gm_status gm_mat_to_dlpack(gm_mat *m, const gm_dlpack_options *opts, struct DLManagedTensorVersioned **out);
GM_API gm_status gm_mat_from_dlpack(struct DLManagedTensorVersioned *t, gm_mat **out);
GM_API gm_status gm_mat_from_dlpack_opts(struct DLManagedTensorVersioned *t, const gm_dlpack_options *opts,
                                         gm_mat **out);

/* ---- Buffers: typed views of reference-counted memory in one space ----
 * A buffer is a view (element type, dims, byte offset, layout) of one
 * block of memory in one space; views share the block.  Handles from
 * gm_buffer_new/displace/ensure are owned by the caller and ended with
 * gm_buffer_free (the memory goes when the last view and, for owning
 * buffers, the last reference are gone).  Element types are named as in
 * Lua: "bool" "int8" "uint8" "int16" "uint16" "int32" "uint32" "int64" "uint64" "float"
 * "double".  Spaces other than host need an active context (gm_cuda_begin
 * on a device, or the emulated device). */
typedef struct gm_buffer gm_buffer;
typedef enum gm_mem_type { GM_MEM_HOST = 0, GM_MEM_PINNED, GM_MEM_DEVICE, GM_MEM_MANAGED } gm_mem_type;

/* A new owning row-major buffer of rank dims (refcount 1, uninitialised). */
GM_API gm_status gm_buffer_new(gm_mem_type space, const char *element_type, int rank, const size_t *dims,
                               gm_buffer **out);
/* Ends this handle's view (NULL is fine). */
GM_API void gm_buffer_free(gm_buffer *b);
/* The user-visible reference count of an owning buffer's memory: +1, or
 * -1 returning the new count (the memory is released at 0 even while
 * views remain: they then fail with "buffer released"). */
GM_API gm_status gm_buffer_ref(gm_buffer *b);
GM_API long gm_buffer_deref(gm_buffer *b);
/* A view of b's memory byte_offset bytes past b's start, of element_type
 * (NULL: b's) and rank dims (rank 0: b's dims, or b's bytes as one
 * dimension when the element size differs). */
GM_API gm_status gm_buffer_displace(const gm_buffer *b, size_t byte_offset, const char *element_type, int rank,
                                    const size_t *dims, gm_buffer **out);
/* n elements (0-based row-major indices) from src to dst: same element
 * type; any two spaces. */
GM_API gm_status gm_buffer_copy(gm_buffer *dst, size_t dst_index, gm_buffer *src, size_t src_index, size_t n);
/* b's elements as memory type mt: a view of b when that needs no copy,
 * else an owning copy (element_type NULL: b's; converted otherwise). */
GM_API gm_status gm_buffer_ensure(const gm_buffer *b, gm_mem_type mt, const char *element_type, gm_buffer **out);
/* A mat's elements as memory type mt: a view of its facet (up to date,
 * kept while the view lives) or, for another element_type, an owning
 * converted copy. */
GM_API gm_status gm_mat_ensure(gm_mat *m, gm_mem_type mt, const char *element_type, gm_buffer **out);
/* n elements from index first (row-major) to / from host memory. */
GM_API gm_status gm_buffer_read(gm_buffer *b, size_t first, size_t n, void *out);
GM_API gm_status gm_buffer_write(gm_buffer *b, size_t first, size_t n, const void *in);
GM_API int gm_buffer_rank(const gm_buffer *b);
GM_API size_t gm_buffer_dim(const gm_buffer *b, int axis);
GM_API size_t gm_buffer_size(const gm_buffer *b);
GM_API const char *gm_buffer_element_type(const gm_buffer *b);
/* "host", "pinned", "device", "managed", as seen through this view. */
GM_API const char *gm_buffer_mem_type(const gm_buffer *b);
/* The C name of the element type ("int32_t", "float", ...). */
GM_API const char *gm_buffer_foreign_type(const gm_buffer *b);
/* "row_major" or "col_major". */
GM_API const char *gm_buffer_layout(const gm_buffer *b);
/* Whether the view carries a reference count (makers and displace: 1;
 * views made by ensure: 0). */
GM_API int gm_buffer_is_owning(const gm_buffer *b);
/* The padded row of a pitched device buffer in bytes (0: not pitched);
 * fails when the memory is released. */
GM_API gm_status gm_buffer_pitch(const gm_buffer *b, size_t *pitch);
/* The user-visible reference count, or -1 once the memory is released. */
GM_API long gm_buffer_refcnt(const gm_buffer *b);

/* Scoped allocation caches: between gm_alloc_cache_begin and
 * gm_alloc_cache_end on one thread, buffers and mat storage come from
 * (and go back to) the cache; memory still allocated when the scope ends
 * returns to the cache unless kept (gm_buffer_keep), and a view of it
 * then fails with "memory returned to an alloc cache". */
typedef struct gm_alloc_cache gm_alloc_cache;
typedef struct gm_cache_scope gm_cache_scope;
GM_API gm_status gm_alloc_cache_new(gm_alloc_cache **out);
/* Drops the creator's reference; the cached memory goes when no scope uses it. */
GM_API void gm_alloc_cache_unref(gm_alloc_cache *c);
GM_API gm_status gm_alloc_cache_begin(gm_alloc_cache *c, gm_cache_scope **scope);
/* Ends scope, which must be this thread's innermost. */
GM_API gm_status gm_alloc_cache_end(gm_cache_scope *scope);
/* b's memory outlives the scope it was allocated in. */
GM_API void gm_buffer_keep(gm_buffer *b);

/* ---- Operations (where: the device inside an active context when all
 * operands are cuda-enabled, else the host).  Operands must have the same
 * ctype; sizes are those of the visible parts. ---- */

/* x := alpha (every visible element) */
GM_API gm_status gm_fill(gm_mat *x, double alpha);
/* y := x (equal sizes) */
GM_API gm_status gm_copy(gm_mat *x, gm_mat *y);
/* x := alpha * x */
GM_API gm_status gm_scal(double alpha, gm_mat *x);
/* y := alpha * x + y (equal sizes) */
GM_API gm_status gm_axpy(double alpha, gm_mat *x, gm_mat *y);
/* c := alpha * op(a) op(b) + beta * c for 2-d mats, op transposing when
 * the flag is nonzero (beta == 0: c is not read) */
GM_API gm_status gm_gemm(double alpha, gm_mat *a, gm_mat *b, double beta, gm_mat *c, int transpose_a,
                         int transpose_b);
/* *out := the sum of x's visible elements (accumulated in x's ctype on
 * the device, as gm.sum_) */
GM_API gm_status gm_sum(gm_mat *x, double *out);
/* y := alpha * (sums of 2-d x along axis: 0 sums each column, 1 each
 * row) + beta * y */
GM_API gm_status gm_sum_axis(gm_mat *x, gm_mat *y, int axis, double alpha, double beta);

/* Elementwise functions, x := f(x): MGL-MAT's twelve in its order, then
 * abs .. relu (round: halves to even, as rint; relu: max(x, 0)), then the
 * array standard's acos .. log10, trunc and positive (a copy), conj (the
 * complex conjugate; the identity on real types).  The
 * library's op table fixes these numbers; new ones only ever go at the
 * end. */
typedef enum gm_function {
  GM_FN_SQUARE = 0, GM_FN_SQRT, GM_FN_LOG, GM_FN_EXP, GM_FN_INV, GM_FN_LOGISTIC,
  GM_FN_SIN, GM_FN_COS, GM_FN_TAN, GM_FN_SINH, GM_FN_COSH, GM_FN_TANH,
  GM_FN_ABS, GM_FN_SIGN, GM_FN_FLOOR, GM_FN_CEIL, GM_FN_ROUND, GM_FN_NEG,
  GM_FN_LOG1P, GM_FN_EXPM1, GM_FN_RELU,
  GM_FN_ACOS, GM_FN_ACOSH, GM_FN_ASIN, GM_FN_ASINH, GM_FN_ATAN, GM_FN_ATANH,
  GM_FN_LOG2, GM_FN_LOG10, GM_FN_TRUNC, GM_FN_POSITIVE, GM_FN_CONJ,
  GM_N_FUNCTIONS
} gm_function;
GM_API gm_status gm_apply(gm_mat *x, gm_function fn);
/* x := x ^ power */
GM_API gm_status gm_expt(gm_mat *x, double power);
/* x := x + alpha */
GM_API gm_status gm_add_scalar(gm_mat *x, double alpha);
/* y := x .* y (equal sizes) */
GM_API gm_status gm_mul(gm_mat *x, gm_mat *y);
/* c := alpha * a .* b + beta * c (equal sizes) */
GM_API gm_status gm_geem(double alpha, gm_mat *a, gm_mat *b, double beta, gm_mat *c);
/* y := x < y ? 1 : 0 */
GM_API gm_status gm_lt(gm_mat *x, gm_mat *y);
/* x := min(alpha, x) and max(alpha, x), elementwise */
GM_API gm_status gm_min(double alpha, gm_mat *x);
GM_API gm_status gm_max(double alpha, gm_mat *x);
/* b := alpha * sign(a) + beta * b (equal sizes) */
GM_API gm_status gm_add_sign(double alpha, gm_mat *a, double beta, gm_mat *b);
/* b := alpha * a .* X + beta * b, every row of X being x: a, b 2-d of
 * equal dims, size(x) = columns */
GM_API gm_status gm_geerv(double alpha, gm_mat *a, gm_mat *x, double beta, gm_mat *b);
/* result := diag(scales) * a (rows) or a * diag(scales) (columns); a 2-d,
 * result of a's dims (may be a) */
GM_API gm_status gm_scale_rows(gm_mat *scales, gm_mat *a, gm_mat *result);
GM_API gm_status gm_scale_columns(gm_mat *scales, gm_mat *a, gm_mat *result);

/* Process-wide counters (gm.counters() in Lua). */
typedef struct gm_counter_values {
  long long n_memcpy_host_to_device, n_memcpy_device_to_host;
  long long device_bytes_in_use, device_bytes_pooled, n_device_arrays;
  long long host_bytes_in_use, n_host_arrays;
  long long n_ooms, n_host_registrations, pinned_host_bytes;
  /* the host caching allocator (host storage, staging, scratch) and the
   * devices' page-locked pools: bytes handed out and cached, requests
   * served from the cache (hits) or the system (misses), cached blocks
   * given back to the system (trims), its cache limit */
  long long host_pool_bytes_in_use, host_pool_bytes_cached, host_pool_hits, host_pool_misses, host_pool_trims;
  long long host_pool_limit, pinned_host_bytes_cached, pinned_host_pool_hits;
} gm_counter_values;
GM_API gm_counter_values gm_counters(void);

#ifdef __cplusplus
}
#endif

#endif
