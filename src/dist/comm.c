/* gpumat.dist over MPI (see comm.h).  Collectives run on a duplicate of
 * MPI_COMM_WORLD with MPI_ERRORS_RETURN, so an MPI error (a truncated
 * message, a dead peer when the runtime reports it) comes back as a
 * status instead of aborting the job. */
#include "comm.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gm_dist_state state = GM_DIST_UNINIT;
static bool use_mpi, we_initialized;
static MPI_Comm comm = MPI_COMM_NULL;
static int my_rank, world_size = 1, tag_ub = 32767, local_rank, local_size = 1;

gm_dist_state gm_dist_get_state(void) { return state; }
int gm_dist_rank(void) { return my_rank; }
int gm_dist_size(void) { return world_size; }
int gm_dist_local_rank(void) { return local_rank; }
int gm_dist_local_size(void) { return local_size; }
bool gm_dist_uses_mpi(void) { return use_mpi; }
int gm_dist_tag_ub(void) { return tag_ub; }

static gm_status mpi_fail(const char *fn, int code) {
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "error %d", code);
  gm_set_lib_error_info(fn, code);
  return gm_fail(GM_EMPI, "%s failed: %s", fn, msg);
}
#define MPI_TRY(fn, args)                                   \
  do {                                                      \
    int rc_ = fn args;                                      \
    if (rc_ != MPI_SUCCESS) return mpi_fail(#fn, rc_);      \
  } while (0)

/* Launched by an MPI launcher?  Singleton MPI_Init works with Open MPI but
 * starts a runtime daemon (slow, and it fails in some containers), so a
 * plain `lua script.lua` gets the internal world of one instead. */
static bool launched(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", NULL};
  for (const char *const *v = vars; *v; v++)
    if (getenv(*v)) return true;
  return false;
}

/* The processes sharing this node's memory: the local rank picks the GPU
 * (one per rank), whatever the launcher's environment variables say. */
static gm_status split_node(void) {
  MPI_Comm node;
  MPI_TRY(MPI_Comm_split_type, (comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int rc = MPI_Comm_rank(node, &local_rank);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_size(node, &local_size);
  MPI_Comm_free(&node);
  if (rc != MPI_SUCCESS) return mpi_fail("MPI_Comm_rank", rc);
  return GM_OK;
}

static void finalize_at_exit(void) {
  if (state == GM_DIST_ACTIVE) (void)gm_dist_finalize();
}

gm_status gm_dist_init(void) {
  if (state == GM_DIST_ACTIVE) return GM_OK;
  if (state == GM_DIST_FINALIZED) return gm_fail(GM_ESTATE, "already finalized (MPI cannot be initialised twice)");
  int already = 0;
  MPI_TRY(MPI_Initialized, (&already));
  use_mpi = already || launched();
  if (use_mpi) {
    if (!already) {
      int provided;
      MPI_TRY(MPI_Init_thread, (NULL, NULL, MPI_THREAD_FUNNELED, &provided));
      we_initialized = true;
    }
    MPI_TRY(MPI_Comm_dup, (MPI_COMM_WORLD, &comm));
    MPI_TRY(MPI_Comm_set_errhandler, (comm, MPI_ERRORS_RETURN));
    MPI_TRY(MPI_Comm_rank, (comm, &my_rank));
    MPI_TRY(MPI_Comm_size, (comm, &world_size));
    GM_TRY(split_node());
    int *ub = NULL, flag = 0;
    if (MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag) == MPI_SUCCESS && flag && ub) tag_ub = *ub;
    static bool registered;
    if (!registered) registered = atexit(finalize_at_exit) == 0;
  } else {
    my_rank = local_rank = 0;
    world_size = local_size = 1;
  }
  state = GM_DIST_ACTIVE;
  return GM_OK;
}

gm_status gm_dist_finalize(void) {
  if (state != GM_DIST_ACTIVE) return GM_OK;
  state = GM_DIST_FINALIZED;
  if (use_mpi) {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    if (we_initialized) MPI_TRY(MPI_Finalize, ());
  }
  return GM_OK;
}

gm_status gm_dist_barrier(void) {
  if (use_mpi) MPI_TRY(MPI_Barrier, (comm));
  return GM_OK;
}

static MPI_Datatype dtype(gm_ctype t) {
#define X(T, E, name, kw, p, P, ET, m, descr, sx, digits, mpi, ...) \
  case GM_##E:                                                      \
    return mpi;
  GM_CTYPE_SWITCH(t, X, return MPI_DATATYPE_NULL)
#undef X
}
static MPI_Op mpi_op(gm_dist_op op) {
  switch (op) {
    case GM_DIST_MAX: return MPI_MAX;
    case GM_DIST_MIN: return MPI_MIN;
    case GM_DIST_PROD: return MPI_PROD;
    default: return MPI_SUM;
  }
}

/* MPI counts are int: messages are split into chunks of at most INT_MAX
 * elements where the collective allows it, refused otherwise. */
static gm_status check_count(size_t n) {
  if (n > INT_MAX) return gm_fail(GM_ERANGE, "%zu elements exceed MPI's count limit (%d)", n, INT_MAX);
  return GM_OK;
}

gm_status gm_dist_check_same(const char *op, const long long *sig, int n) {
  if (!use_mpi || n <= 0) return GM_OK;
  long long buf[16];
  if (n > 8) n = 8;
  for (int i = 0; i < n; i++) {
    buf[i] = sig[i];
    buf[n + i] = -sig[i];
  }
  MPI_TRY(MPI_Allreduce, (MPI_IN_PLACE, buf, 2 * n, MPI_LONG_LONG, MPI_MAX, comm));
  for (int i = 0; i < n; i++)
    if (buf[i] != -buf[n + i])
      return gm_fail(GM_EINVAL, "ranks disagree on the %s call (argument %d: %lld on some rank, %lld on another)",
                     op, i + 1, -buf[n + i], buf[i]);
  return GM_OK;
}

gm_status gm_dist_allreduce(void *buf, size_t n, gm_ctype t, gm_dist_op op) {
  if (!use_mpi || n == 0) return GM_OK;
  char *p = buf;
  size_t es = gm_ctype_size(t);
  while (n > 0) {
    int c = n > INT_MAX ? INT_MAX : (int)n;
    MPI_TRY(MPI_Allreduce, (MPI_IN_PLACE, p, c, dtype(t), mpi_op(op), comm));
    p += (size_t)c * es;
    n -= (size_t)c;
  }
  return GM_OK;
}

gm_status gm_dist_bcast(void *buf, size_t n, gm_ctype t, int root) {
  if (!use_mpi || n == 0) return GM_OK;
  char *p = buf;
  size_t es = gm_ctype_size(t);
  while (n > 0) {
    int c = n > INT_MAX ? INT_MAX : (int)n;
    MPI_TRY(MPI_Bcast, (p, c, dtype(t), root, comm));
    p += (size_t)c * es;
    n -= (size_t)c;
  }
  return GM_OK;
}

gm_status gm_dist_bcast_bytes(void *buf, size_t n, int root) {
  if (!use_mpi) return GM_OK;
  GM_TRY(check_count(n));
  MPI_TRY(MPI_Bcast, (buf, (int)n, MPI_BYTE, root, comm));
  return GM_OK;
}

gm_status gm_dist_allgather(const void *send, void *recv, size_t n, gm_ctype t) {
  if (!use_mpi) {
    if (n) memmove(recv, send, n * gm_ctype_size(t));
    return GM_OK;
  }
  if (n == 0) return GM_OK;
  GM_TRY(check_count(n));
  MPI_TRY(MPI_Allgather, (send, (int)n, dtype(t), recv, (int)n, dtype(t), comm));
  return GM_OK;
}

gm_status gm_dist_reduce_scatter(const void *send, void *recv, size_t n, gm_ctype t, gm_dist_op op) {
  if (!use_mpi) {
    if (n) memmove(recv, send, n * gm_ctype_size(t));
    return GM_OK;
  }
  if (n == 0) return GM_OK;
  GM_TRY(check_count(n));
  MPI_TRY(MPI_Reduce_scatter_block, (send, recv, (int)n, dtype(t), mpi_op(op), comm));
  return GM_OK;
}

gm_status gm_dist_send(const void *buf, size_t n, gm_ctype t, int dest, int tag) {
  if (!use_mpi) return gm_fail(GM_EINVAL, "no peer to send to in a world of one process");
  GM_TRY(check_count(n));
  MPI_TRY(MPI_Send, (buf, (int)n, dtype(t), dest, tag, comm));
  return GM_OK;
}

gm_status gm_dist_recv(void *buf, size_t n, gm_ctype t, int src, int tag) {
  if (!use_mpi) return gm_fail(GM_EINVAL, "no peer to receive from in a world of one process");
  GM_TRY(check_count(n));
  MPI_Status st;
  MPI_TRY(MPI_Recv, (buf, (int)n, dtype(t), src, tag, comm, &st));
  int got = 0;
  MPI_TRY(MPI_Get_count, (&st, dtype(t), &got));
  if ((size_t)got != n) return gm_fail(GM_EINVAL, "received %d elements, expected %zu", got, n);
  return GM_OK;
}

gm_status gm_dist_sendrecv(const void *send, size_t n, int dest, void *recv, size_t rn, int src, gm_ctype t,
                           int tag) {
  if (!use_mpi) return gm_fail(GM_EINVAL, "no peer to exchange with in a world of one process");
  GM_TRY(check_count(n));
  GM_TRY(check_count(rn));
  MPI_Status st;
  MPI_TRY(MPI_Sendrecv, (send, (int)n, dtype(t), dest, tag, recv, (int)rn, dtype(t), src, tag, comm, &st));
  int got = 0;
  MPI_TRY(MPI_Get_count, (&st, dtype(t), &got));
  if ((size_t)got != rn) return gm_fail(GM_EINVAL, "received %d elements, expected %zu", got, rn);
  return GM_OK;
}
