/* Process-wide counters reported by gm.counters() and the room reports. */
#ifndef GM_CORE_COUNTERS_H
#define GM_CORE_COUNTERS_H

#include <stdatomic.h>

/* (gm_counters() is the public reader, include/gpumat.h) */
typedef struct gm_counter_set {
  atomic_long n_memcpy_host_to_device;
  atomic_long n_memcpy_device_to_host;
  atomic_long host_bytes_in_use;
  atomic_long n_host_arrays;
  atomic_long n_host_registrations;
  atomic_long n_ooms;
  /* with_mat_counters: mats created and bytes they may need */
  atomic_long n_mats_created;
  atomic_long n_mat_bytes_created;
  /* bytes handed out by the host pools and the device pools, ever: the
   * Lua binding paces its collector by it (l_mat.c, gml_pushmat) */
  atomic_long n_bytes_allocated;
} gm_counter_set;

extern gm_counter_set gm_counter;

#endif
