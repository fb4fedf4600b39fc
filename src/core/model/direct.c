#include "direct.h"

#include <stdlib.h>
#include <string.h>

#ifdef __linux__
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool available;
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static gm_direct_slot *slots; /* every slot ever made: they stay reachable */
static _Thread_local gm_direct_slot *mine;

static void init(void) {
  /* GPUMAT_NO_DIRECT=1: no certificates, as on a kernel without membarrier
   * (tools/suite.d/23-element-fallback.sh runs the element specs so) */
  const char *off = getenv("GPUMAT_NO_DIRECT");
  if (off && *off && strcmp(off, "0") != 0) return;
#ifdef __linux__
  /* the expedited private command must be registered before use */
  available = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
#endif
}

gm_direct_slot *gm_direct_my_slot(void) {
  pthread_once(&once, init);
  if (!available) return NULL;
  if (mine) return mine;
  gm_direct_slot *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->owner = pthread_self();
  pthread_mutex_lock(&slots_lock);
  s->next = slots;
  slots = s;
  pthread_mutex_unlock(&slots_lock);
  return mine = s;
}

void gm_direct_barrier(void) {
#ifdef __linux__
  /* a certificate exists only when registration succeeded */
  syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
#endif
}
