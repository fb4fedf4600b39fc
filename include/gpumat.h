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

#ifdef __cplusplus
extern "C" {
#endif

#define GPUMAT_VERSION "0.1.0"
#define GM_MAX_RANK 8

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
const char *gm_last_error(void);
/* Symbolic name of a status ("invalid_argument", "cuda_out_of_memory", ...). */
const char *gm_status_name(gm_status st);

typedef struct gm_mat gm_mat;

typedef enum gm_sync { GM_SYNC_FALSE = 0, GM_SYNC_TRUE = 1, GM_SYNC_MAYBE = 2 } gm_sync;

/* Options of gm_mat_new; zero-initialise and set what you need. */
typedef struct gm_mat_options {
  int ctype;                /* 0 = float, 1 = double (gm_ctype) */
  size_t displacement;
  size_t max_size;          /* 0 = displacement + size */
  int has_initial_element;  /* 0: storage is not initialised */
  double initial_element;
  int cuda_enabled;
  gm_sync synchronization;
} gm_mat_options;

/* Creates a mat of rank dims (rank 0..GM_MAX_RANK). No memory is allocated
 * until a facet is first accessed. */
gm_status gm_mat_new(int rank, const size_t *dims, const gm_mat_options *opts,
                     gm_mat **out);
/* A new view on m's storage with the given shape and absolute displacement. */
gm_status gm_mat_view(const gm_mat *m, int rank, const size_t *dims,
                      size_t displacement, gm_mat **out);
/* Drops this view's reference to the storage (NULL is fine). */
void gm_mat_free(gm_mat *m);

int gm_mat_rank(const gm_mat *m);
size_t gm_mat_dim(const gm_mat *m, int axis);
size_t gm_mat_size(const gm_mat *m);
size_t gm_mat_displacement(const gm_mat *m);
size_t gm_mat_max_size(const gm_mat *m);
int gm_mat_ctype(const gm_mat *m);

/* Element access through the host ("foreign") facet, 0-based row-major index. */
gm_status gm_mat_get(gm_mat *m, size_t row_major_index, double *out);
gm_status gm_mat_put(gm_mat *m, size_t row_major_index, double value);

#ifdef __cplusplus
}
#endif

#endif
