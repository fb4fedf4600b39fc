/* Builds without NCCL (or without the CUDA backend): device collectives
 * fall back to MPI on the host facet (see collective.c), so these are never
 * called. */
#include "nccl.h"

bool gm_nccl_built(void) { return false; }
bool gm_nccl_usable(const gm_device *d) {
  (void)d;
  return false;
}
static gm_status absent(void) { return gm_fail(GM_EUNSUPPORTED, "gpumat was built without NCCL"); }
gm_status gm_nccl_allreduce(gm_device *d, void *buf, size_t n, gm_ctype t, gm_dist_op op, bool average) {
  (void)d, (void)buf, (void)n, (void)t, (void)op, (void)average;
  return absent();
}
gm_status gm_nccl_bcast(gm_device *d, void *buf, size_t n, gm_ctype t, int root) {
  (void)d, (void)buf, (void)n, (void)t, (void)root;
  return absent();
}
gm_status gm_nccl_allgather(gm_device *d, const void *send, void *recv, size_t n, gm_ctype t) {
  (void)d, (void)send, (void)recv, (void)n, (void)t;
  return absent();
}
gm_status gm_nccl_reduce_scatter(gm_device *d, const void *send, void *recv, size_t n, gm_ctype t,
                                 gm_dist_op op) {
  (void)d, (void)send, (void)recv, (void)n, (void)t, (void)op;
  return absent();
}
gm_status gm_nccl_send(gm_device *d, const void *buf, size_t n, gm_ctype t, int dest) {
  (void)d, (void)buf, (void)n, (void)t, (void)dest;
  return absent();
}
gm_status gm_nccl_recv(gm_device *d, void *buf, size_t n, gm_ctype t, int src) {
  (void)d, (void)buf, (void)n, (void)t, (void)src;
  return absent();
}
gm_status gm_nccl_sendrecv(gm_device *d, const void *send, size_t n, int dest, void *recv, size_t rn, int src,
                           gm_ctype t) {
  (void)d, (void)send, (void)n, (void)dest, (void)recv, (void)rn, (void)src, (void)t;
  return absent();
}
void gm_nccl_finalize(void) {}
