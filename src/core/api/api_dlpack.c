/* DLPack interchange (include/gpumat.h, gm_mat_to_dlpack and
 * gm_mat_from_dlpack): a mat's facet handed out as a
 * DLManagedTensorVersioned without a copy, and foreign memory taken in as
 * a mat's storage without one.
 *
 * Ownership.  An export holds the mat's storage (a vec reference) and a
 * reference of the exported facet (so destroy_facet and a context's exit
 * keep its memory) until its deleter runs, whenever and on whatever
 * thread that is: the mat may be freed first or last.  An import wraps
 * the memory in a block whose release calls the producer's deleter once,
 * when the last view of the storage goes (for device and managed memory
 * through the device's deferred queue, after its queued work).
 *
 * Element types come from the ctype list's kind and size columns
 * (code_of_kind below): a new ctype of an existing kind needs nothing
 * here, a new kind one row. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../exec/stage.h"
#include "../mem/block.h"
#include "../mem/runtime.h"
#include "../model/context.h"
#include "../model/view.h"

/* DLPack's type code of each kind of the ctype list (ctype_list.h); bits
 * are 8 * the size (a complex row's whole pair, as DLPack counts).  A kind
 * not here has no code (refused both ways).  The two 16-bit float
 * formats share kind FLOAT: bfloat16 is kDLBfloat (dl_dtype). */
static const struct {
  bool ok;
  uint8_t code;
} code_of_kind[] = {
    [GM_KIND_FLOAT] = {true, kDLFloat},
    [GM_KIND_BOOL] = {true, kDLBool},
    [GM_KIND_INT] = {true, kDLInt},
    [GM_KIND_UINT] = {true, kDLUInt},
    [GM_KIND_COMPLEX] = {true, kDLComplex},
};

static gm_status dl_dtype(gm_ctype ct, DLDataType *out) {
  int kind = gm_ctype_kind(ct);
  if (kind < 0 || (size_t)kind >= sizeof code_of_kind / sizeof code_of_kind[0] || !code_of_kind[kind].ok)
    return gm_fail(GM_EUNSUPPORTED, "element type %s has no DLPack type code", gm_ctype_name(ct));
  *out = (DLDataType){ct == GM_BFLOAT16 ? (uint8_t)kDLBfloat : code_of_kind[kind].code,
                      (uint8_t)(8 * gm_ctype_size(ct)), 1};
  return GM_OK;
}

static bool ctype_of_dl(DLDataType t, gm_ctype *out) {
  for (int c = 0; c < GM_N_CTYPES; c++) {
    DLDataType d;
    if (dl_dtype((gm_ctype)c, &d) == GM_OK && d.code == t.code && d.bits == t.bits && t.lanes == 1) {
      *out = (gm_ctype)c;
      return true;
    }
  }
  return false;
}

static bool is_cuda(const gm_device *d) { return d && strcmp(d->ops->name, "cuda") == 0; }

/* ---- export ---- */

typedef struct dl_export {
  DLManagedTensorVersioned t;
  int64_t shape[GM_MAX_RANK], strides[GM_MAX_RANK];
  gm_vec *vec;
  int facet; /* the referenced facet, -1 for none (an empty mat) */
} dl_export;

static void export_deleter(DLManagedTensorVersioned *t) {
  if (!t) return;
  dl_export *e = t->manager_ctx;
  if (e->facet >= 0) (void)gm_vec_remove_facet_reference(e->vec, (gm_facet_name)e->facet);
  gm_vec_unref(e->vec);
  free(e);
}

/* The facet an export describes, and the device it needs (NULL: host). */
static gm_status pick_facet(gm_mat *m, int where, gm_facet_name *f, gm_device **dev) {
  gm_vec *v = m->vec;
  gm_facet info;
  *f = GM_FACET_FOREIGN;
  *dev = NULL;
  if (where == GM_DLPACK_WHERE) { /* the device's copy only when it alone is current */
    if (gm_vec_facet_info(v, GM_FACET_CUDA, &info) && info.up_to_date && is_cuda(info.device) &&
        !gm_vec_facet_up_to_date(v, GM_FACET_FOREIGN)) {
      *f = GM_FACET_CUDA;
      *dev = info.device;
    }
    return GM_OK;
  }
  if (where == GM_DLPACK_HOST) return GM_OK;
  if (where != GM_DLPACK_CUDA) return gm_fail(GM_EINVAL, "gm_mat_to_dlpack: bad device %d", where);
  gm_device *d = gm_current_device();
  if (!d) return gm_fail(GM_ESTATE, "exporting to cuda needs an active cuda context (with_cuda)");
  if (!is_cuda(d))
    return gm_fail(GM_EUNSUPPORTED, "the emulated device's memory is not CUDA memory: export with device "
                                    "\"host\" (its data is brought to the host first)");
  *f = GM_FACET_CUDA;
  *dev = d;
  return GM_OK;
}

/* DLPack's device of the exported memory: what its block is, as seen
 * from the facet (a mapped or managed vec's cuda facet is host memory). */
static DLDevice dl_device_of(gm_vec *v, gm_facet_name f, gm_device *dev) {
  gm_block *b = gm_vec_facet_block(v, f);
  gm_space s = b ? b->space : GM_SPACE_HOST;
  bool real = b && is_cuda(b->device);
  if (s == GM_SPACE_DEVICE) return (DLDevice){kDLCUDA, dev ? dev->id : 0};
  if (s == GM_SPACE_MANAGED && real) return (DLDevice){kDLCUDAManaged, 0};
  if ((s == GM_SPACE_PINNED && real) || (b && is_cuda(b->registered_on))) return (DLDevice){kDLCUDAHost, 0};
  return (DLDevice){kDLCPU, 0};
}

/* Brings facet f of m up to date as the only current one (the consumer
 * may write it) and takes the reference the export holds. */
static gm_status share_facet(gm_mat *m, gm_facet_name f, gm_device *dev, bool sync, void **ptr) {
  GM_TRY(gm_vec_add_facet_reference(m->vec, f, dev));
  gm_status st = gm_mat_watch_strided(m, f, GM_IO, dev, ptr);
  if (st == GM_OK) gm_mat_unwatch(m, f, GM_IO);
  /* a consumer uses the memory on its own streams: gpumat's queued work
   * first (the whole compute stream, which orders it before any stream of
   * the consumer's), unless the consumer said stream -1 */
  if (st == GM_OK && dev && sync) st = dev->ops->stream_sync(dev, NULL);
  if (st != GM_OK) (void)gm_vec_remove_facet_reference(m->vec, f);
  return st;
}

static gm_status fill_export(gm_mat *m, int where, const gm_dlpack_options *o, bool copied, dl_export *e) {
  gm_facet_name f;
  gm_device *dev;
  GM_TRY(pick_facet(m, where, &f, &dev));
  if (dev && o->dl_device_type == kDLCUDA && o->dl_device_id != dev->id)
    return gm_fail(GM_EUNSUPPORTED, "dl_device (kDLCUDA, %d): the active context is on CUDA device %d",
                   (int)o->dl_device_id, dev->id);
  GM_TRY(dl_dtype(m->ctype, &e->t.dl_tensor.dtype));
  void *ptr = NULL;
  e->facet = -1;
  if (m->size > 0) {
    GM_TRY(share_facet(m, f, dev, o->stream != -1, &ptr));
    e->facet = (int)f;
  }
  DLTensor *t = &e->t.dl_tensor;
  t->data = ptr; /* the first visible element; DLPack's NULL for no elements */
  t->device = dl_device_of(m->vec, f, dev);
  /* page-locked or CUDA-registered host memory is CPU memory too: a
   * consumer asking for kDLCPU gets it as such */
  if (o->dl_device_type == kDLCPU && t->device.device_type == kDLCUDAHost) t->device = (DLDevice){kDLCPU, 0};
  t->ndim = m->rank;
  t->shape = e->shape;
  t->strides = e->strides;
  for (int i = 0; i < m->rank; i++) {
    e->shape[i] = (int64_t)m->dims[i];
    e->strides[i] = m->strides[i];
  }
  e->t.version = (DLPackVersion){1, 0};
  e->t.manager_ctx = e;
  e->t.deleter = export_deleter;
  e->t.flags = (copied ? DLPACK_FLAG_BITMASK_IS_COPIED : 0) |
               (gm_mat_self_overlaps(m) ? DLPACK_FLAG_BITMASK_READ_ONLY : 0);
  gm_vec_ref(m->vec);
  e->vec = m->vec;
  return GM_OK;
}

static const char *dl_device_name(int type) {
  switch (type) {
    case kDLCPU: return "kDLCPU";
    case kDLCUDA: return "kDLCUDA";
    case kDLCUDAHost: return "kDLCUDAHost";
    case kDLCUDAManaged: return "kDLCUDAManaged";
    default: return "another DLPack device type";
  }
}

/* The facet choice (GM_DLPACK_WHERE/HOST/CUDA) that a consumer's dl_device
 * asks for; kDLCUDAHost and kDLCUDAManaged are checked once the memory's
 * kind is known (check_export). */
static gm_status where_of(const gm_dlpack_options *o, int *where) {
  *where = o->device;
  if (o->copy < GM_DLPACK_COPY_IF_NEEDED || o->copy > GM_DLPACK_COPY_NEVER)
    return gm_fail(GM_EINVAL, "gm_mat_to_dlpack: bad copy %d", o->copy);
  if (o->stream < -1 || o->stream > INT64_MAX - 1)
    return gm_fail(GM_EINVAL, "stream %lld is not a stream (the array API's: -1 no synchronization, 1 the legacy "
                              "default stream, 2 the per-thread default stream, above 2 a stream)", (long long)o->stream);
  if (!o->dl_device_type) return GM_OK;
  if (o->device != GM_DLPACK_WHERE) return gm_fail(GM_EINVAL, "device and dl_device given together");
  switch (o->dl_device_type) {
    case kDLCPU:
      if (o->dl_device_id != 0) return gm_fail(GM_EUNSUPPORTED, "dl_device (kDLCPU, %d): the CPU is device 0", (int)o->dl_device_id);
      *where = GM_DLPACK_HOST;
      return GM_OK;
    case kDLCUDAHost: *where = GM_DLPACK_HOST; return GM_OK;
    case kDLCUDAManaged: *where = GM_DLPACK_WHERE; return GM_OK;
    case kDLCUDA: *where = GM_DLPACK_CUDA; return GM_OK;
    default:
      return gm_fail(GM_EUNSUPPORTED, "dl_device type %d: gpumat exports kDLCPU (1), kDLCUDA (2), kDLCUDAHost (3) "
                                      "and kDLCUDAManaged (13)", (int)o->dl_device_type);
  }
}

/* What the filled export must satisfy: the device asked for, and a stream
 * only where there are streams (the array API: kDLCPU takes none). */
static gm_status check_export(const gm_dlpack_options *o, const DLDevice *d) {
  if (o->dl_device_type && (int)d->device_type != o->dl_device_type)
    return gm_fail(GM_EUNSUPPORTED, "dl_device %s: m's memory is %s memory (only a copy could be %s, and gpumat "
                                    "makes none there)", dl_device_name(o->dl_device_type),
                   dl_device_name((int)d->device_type), dl_device_name(o->dl_device_type));
  if (d->device_type == kDLCPU && o->stream != 0 && o->stream != -1)
    return gm_fail(GM_EINVAL, "stream %lld: an export of host (kDLCPU) memory takes no stream", (long long)o->stream);
  return GM_OK;
}

gm_status gm_mat_to_dlpack(gm_mat *m, const gm_dlpack_options *opts, DLManagedTensorVersioned **out) {
  if (!m || !out) return gm_fail(GM_EINVAL, "gm_mat_to_dlpack: NULL argument");
  gm_dlpack_options def = {0};
  if (!opts) opts = &def;
  int where;
  GM_TRY(where_of(opts, &where));
  GM_TRY(gm_vec_check_memory(m->vec));
  dl_export *e = calloc(1, sizeof *e);
  if (!e) return gm_fail(GM_ENOMEM, "gm_mat_to_dlpack: out of host memory");
  gm_mat *src = m, *copy = NULL;
  gm_status st = GM_OK;
  if (opts->copy == GM_DLPACK_COPY_ALWAYS) { /* a new storage of m's elements, row-major, that only the consumer sees */
    st = gm_mat_contiguous_copy(m, &copy);
    src = copy;
  }
  /* (an export never needs a copy: every layout and facet is exported as
   * it is, so GM_DLPACK_COPY_NEVER and _IF_NEEDED share the memory) */
  if (st == GM_OK) st = fill_export(src, where, opts, copy != NULL, e);
  gm_mat_free(copy); /* the export holds its storage */
  if (st != GM_OK) {
    free(e);
    return st;
  }
  st = check_export(opts, &e->t.dl_tensor.device);
  if (st != GM_OK) {
    export_deleter(&e->t); /* gives back what fill_export took */
    return st;
  }
  *out = &e->t;
  return GM_OK;
}

/* ---- import ---- */

static void call_deleter(void *ud) {
  DLManagedTensorVersioned *t = ud;
  if (t->deleter) t->deleter(t);
}

/* The storage span of t's elements: storage index of element 0 from the
 * lowest (*disp) and the number of elements from lowest to highest. */
static gm_status span_of(const DLTensor *t, size_t dims[GM_MAX_RANK], int64_t strides[GM_MAX_RANK], size_t *disp,
                         size_t *extent) {
  int64_t lo = 0, hi = 0, row = 1;
  for (int i = t->ndim - 1; i >= 0; i--) {
    int64_t n = t->shape[i], s = t->strides ? t->strides[i] : row, reach;
    if (n < 0) return gm_fail(GM_EINVAL, "shape[%d] is negative (%lld)", i, (long long)n);
    dims[i] = (size_t)n;
    strides[i] = s;
    if (n > 0 && __builtin_mul_overflow(n - 1, s, &reach))
      return gm_fail(GM_ERANGE, "the tensor's strides reach beyond the address space");
    if (n > 0 && (__builtin_add_overflow(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi) ||
                  __builtin_mul_overflow(row, n, &row)))
      return gm_fail(GM_ERANGE, "the tensor's strides reach beyond the address space");
  }
  if (hi - lo >= (int64_t)(SIZE_MAX / 16))
    return gm_fail(GM_ERANGE, "the tensor spans too many elements");
  *disp = (size_t)-lo;
  *extent = (size_t)(hi - lo) + 1;
  return GM_OK;
}

/* Where t's memory can be a mat's: the block's space and device. */
static gm_status space_of(DLDevice d, gm_space *space, gm_device **dev) {
  gm_device *cur = gm_current_device();
  *dev = NULL;
  *space = GM_SPACE_HOST;
  switch (d.device_type) {
    case kDLCPU:
    case kDLCUDAHost: /* page-locked host memory is host memory */
      return GM_OK;
    case kDLCUDAManaged: /* in place on a CUDA device; else the host's */
      if (is_cuda(cur)) *space = GM_SPACE_MANAGED, *dev = cur;
      return GM_OK;
    case kDLCUDA:
      if (!is_cuda(cur))
        return gm_fail(cur ? GM_EUNSUPPORTED : GM_ESTATE, "CUDA memory needs an active context on a CUDA device%s",
                       cur ? " (the emulated device's memory is not CUDA memory)" : " (with_cuda)");
      if (d.device_id != cur->id)
        return gm_fail(GM_EINVAL, "the tensor is on CUDA device %d, the active context's is %d", (int)d.device_id,
                       cur->id);
      *space = GM_SPACE_DEVICE, *dev = cur;
      return GM_OK;
    default:
      return gm_fail(GM_EUNSUPPORTED, "DLPack device type %d is not one gpumat uses", (int)d.device_type);
  }
}

static gm_status check_tensor(const DLManagedTensorVersioned *m, int copy, gm_ctype *ct) {
  if (m->version.major != 1)
    return gm_fail(GM_EUNSUPPORTED, "DLPack major version %u (gpumat reads version 1)", (unsigned)m->version.major);
  if ((m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) && copy == GM_DLPACK_COPY_NEVER)
    return gm_fail(GM_EUNSUPPORTED, "the tensor is read-only (gpumat's mats are writable): import a copy");
  const DLTensor *t = &m->dl_tensor;
  if (t->ndim < 0 || t->ndim > GM_MAX_RANK)
    return gm_fail(GM_EINVAL, "ndim %d is out of range 0..%d", (int)t->ndim, GM_MAX_RANK);
  if (t->ndim > 0 && !t->shape) return gm_fail(GM_EINVAL, "shape is NULL");
  if (!ctype_of_dl(t->dtype, ct))
    return gm_fail(GM_EUNSUPPORTED, "DLPack dtype (code %u, bits %u, lanes %u) is no gpumat element type",
                   (unsigned)t->dtype.code, (unsigned)t->dtype.bits, (unsigned)t->dtype.lanes);
  return GM_OK;
}

/* A mat over the wrapped block b: dims and strides as given, element 0 at
 * storage index disp. */
static gm_status mat_over(gm_ctype ct, gm_block *b, size_t extent, int rank, const size_t *dims,
                          const int64_t *strides, size_t disp, gm_mat **out) {
  gm_mat *m = calloc(1, sizeof *m);
  if (!m) return gm_fail(GM_ENOMEM, "out of host memory allocating a mat");
  gm_status st = gm_vec_wrap_block(ct, extent, b, &m->vec);
  if (st != GM_OK) {
    free(m);
    return st;
  }
  m->ctype = ct;
  m->rank = rank;
  m->size = 1;
  for (int i = 0; i < rank; i++) {
    m->dims[i] = dims[i];
    m->strides[i] = strides[i];
    m->size *= dims[i];
  }
  m->displacement = disp;
  m->cuda_enabled = true;
  gm_mat_update_contiguous(m);
  *out = m;
  return GM_OK;
}

/* No elements: an ordinary empty mat, and the producer's memory goes back at once. */
static gm_status import_empty(DLManagedTensorVersioned *t, gm_ctype ct, const size_t *dims, gm_mat **out) {
  gm_mat_options o = {.ctype = (int)ct, .cuda_enabled = 1, .synchronization = GM_SYNC_MAYBE};
  GM_TRY(gm_mat_new(t->dl_tensor.ndim, dims, &o, out));
  call_deleter(t);
  return GM_OK;
}

/* The device a consumer asks for must be where the tensor is (gpumat
 * moves a mat's data between host and device itself, once the mat is
 * used there); host memory of any kind serves a kDLCPU request. */
static gm_status check_import_device(const gm_dlpack_options *o, DLDevice d) {
  if (o->copy < GM_DLPACK_COPY_IF_NEEDED || o->copy > GM_DLPACK_COPY_NEVER)
    return gm_fail(GM_EINVAL, "gm_mat_from_dlpack_opts: bad copy %d", o->copy);
  if (o->device != GM_DLPACK_WHERE || o->stream != 0)
    return gm_fail(GM_EINVAL, "gm_mat_from_dlpack_opts: device and stream are export options (set dl_device)");
  int want = o->dl_device_type;
  if (!want) return GM_OK;
  bool host = d.device_type == kDLCPU || d.device_type == kDLCUDAHost || d.device_type == kDLCUDAManaged;
  if (want == (int)d.device_type ? want != kDLCUDA || o->dl_device_id == d.device_id : want == kDLCPU && host)
    return GM_OK;
  return gm_fail(GM_EUNSUPPORTED, "the tensor is %s memory (device %d); gpumat does not move it to %s (device %d): "
                                  "import it where it is", dl_device_name((int)d.device_type), (int)d.device_id,
                 dl_device_name(want), (int)o->dl_device_id);
}

static gm_status import(DLManagedTensorVersioned *t, const gm_dlpack_options *o, gm_mat **out);

gm_status gm_mat_from_dlpack(DLManagedTensorVersioned *t, gm_mat **out) {
  gm_dlpack_options o = {.copy = GM_DLPACK_COPY_NEVER};
  return import(t, &o, out);
}

gm_status gm_mat_from_dlpack_opts(DLManagedTensorVersioned *t, const gm_dlpack_options *opts, gm_mat **out) {
  gm_dlpack_options def = {0};
  return import(t, opts ? opts : &def, out);
}

static gm_status import(DLManagedTensorVersioned *t, const gm_dlpack_options *o, gm_mat **out) {
  if (!t || !out) return gm_fail(GM_EINVAL, "gm_mat_from_dlpack: NULL argument");
  gm_ctype ct = GM_DOUBLE;
  GM_TRY(check_import_device(o, t->dl_tensor.device));
  GM_TRY(check_tensor(t, o->copy, &ct));
  /* a copy when asked for, or when a read-only tensor must become a writable mat */
  bool copy = o->copy == GM_DLPACK_COPY_ALWAYS || (t->flags & DLPACK_FLAG_BITMASK_READ_ONLY);
  const DLTensor *d = &t->dl_tensor;
  size_t dims[GM_MAX_RANK], disp = 0, extent = 0, size = 1, es = gm_ctype_size(ct);
  int64_t strides[GM_MAX_RANK];
  GM_TRY(span_of(d, dims, strides, &disp, &extent));
  for (int i = 0; i < d->ndim; i++) size *= dims[i];
  gm_space space;
  gm_device *dev;
  GM_TRY(space_of(d->device, &space, &dev));
  if (size == 0) return import_empty(t, ct, dims, out);
  if (!d->data) return gm_fail(GM_EINVAL, "data is NULL");
  uintptr_t first = (uintptr_t)d->data + (uintptr_t)d->byte_offset;
  if (first % es) return gm_fail(GM_EINVAL, "the data is not aligned to its %zu-byte elements", es);
  char *base = (char *)d->data + d->byte_offset - disp * es;
  gm_block *b;
  GM_TRY(gm_block_wrap_in(space, dev, base, extent * es, call_deleter, t, &b));
  gm_mat *view = NULL;
  gm_status st = mat_over(ct, b, extent, d->ndim, dims, strides, disp, &view);
  if (st != GM_OK) {
    b->wrap_release = NULL; /* the tensor stays the caller's */
    gm_block_deref(b);
    gm_block_drop(b);
    return st;
  }
  if (!copy) {
    *out = view;
    return GM_OK;
  }
  /* the copy is read from the view (never written), which then goes: its
   * storage calls the deleter (device memory after the queued work) */
  st = gm_mat_contiguous_copy(view, out);
  if (st != GM_OK) b->wrap_release = NULL; /* failed: the tensor stays the caller's */
  gm_mat_free(view);
  return st;
}
