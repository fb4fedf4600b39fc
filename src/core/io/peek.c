#include "peek.h"

#include "../mem/runtime.h"
#include "../model/view.h"

gm_peek_source gm_mat_peek_source(gm_mat *m) {
  gm_facet info;
  bool host = false, host_current = false, device_current = false;
  if (gm_vec_check_memory(m->vec) != GM_OK) return GM_PEEK_NONE; /* nothing left to show */
  for (int f = 0; f < GM_N_FACETS; f++) {
    if (!gm_vec_facet_info(m->vec, (gm_facet_name)f, &info)) continue;
    if (f == GM_FACET_FOREIGN || f == GM_FACET_CUDA_HOST) {
      host = true;
      host_current = host_current || info.up_to_date;
    } else if (f == GM_FACET_CUDA) {
      device_current = info.up_to_date;
    }
  }
  if (host_current) return GM_PEEK_HOST;
  if (device_current) return GM_PEEK_DEVICE;
  /* a stale host copy with nothing newer is still the best we have */
  if (host) return GM_PEEK_HOST;
  return m->vec->has_initial_element ? GM_PEEK_INITIAL : GM_PEEK_NONE;
}

const void *gm_mat_peek_host(gm_mat *m) {
  return (const char *)m->vec->host + gm_mat_lowest(m) * gm_ctype_size(m->ctype);
}

size_t gm_peek_first(const gm_mat *m) { return m->displacement - gm_mat_lowest(m); }

gm_status gm_mat_peek_device(gm_mat *m, void *buf) {
  gm_facet info;
  if (!gm_vec_facet_info(m->vec, GM_FACET_CUDA, &info) || !info.ptr)
    return gm_fail(GM_ESTATE, "mat has no cuda facet to read");
  size_t esize = gm_ctype_size(m->ctype);
  if (m->size == 0) return GM_OK;
  const char *src = (const char *)info.ptr + gm_mat_lowest(m) * esize;
  return gm_device_copy_d2h(info.device, buf, src, gm_mat_extent(m) * esize);
}
