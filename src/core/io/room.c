#include "room.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "../model/counters.h"
#include "format.h"
#include "../mem/runtime.h"

void gm_room_report(struct gm_device *d, bool verbose, char *buf, size_t n) {
  gm_pool_stats s = gm_pool_get_stats(&d->pool);
  unsigned long long v[7] = {s.n_in_use,
                             s.in_use,
                             s.cached,
                             (unsigned long long)atomic_load(&d->n_pinned_arrays),
                             (unsigned long long)atomic_load(&d->pinned_bytes),
                             (unsigned long long)atomic_load(&gm_counter.n_memcpy_host_to_device),
                             (unsigned long long)atomic_load(&gm_counter.n_memcpy_device_to_host)};
  static const char *const verbose_parts[] = {
      "CUDA memory usage:\ndevice arrays: ", " (used bytes: ", ", pooled bytes: ", ")\nhost arrays: ",
      " (used bytes: ", ")\nhost->device copies: ", ", device->host copies: ", "\n"};
  static const char *const concise_parts[] = {"d: ", " (", " + ", "), h: ", " (", ")\nh->d: ", ", d->h: ", "\n"};
  const char *const *parts = verbose ? verbose_parts : concise_parts;
  size_t k = 0;
  buf[0] = '\0';
  for (int i = 0; i < 8 && k < n; i++) {
    char num[32] = "";
    /* the array counts are small and printed plainly, the rest grouped */
    if (i == 0 || i == 3)
      snprintf(num, sizeof num, "%d", (int)v[i]);
    else if (i < 7)
      gm_format_grouped((long long)v[i], num, sizeof num);
    int w = snprintf(buf + k, n - k, "%s%s", parts[i], num);
    k += w > 0 ? (size_t)w : 0;
  }
}
