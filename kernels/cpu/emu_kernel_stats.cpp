// The registry of emulated kernel launch counters (emu_kernel_stats.h).
#include "emu_kernel_stats.h"

#include <mutex>

static std::mutex registry_lock;
static gm_emu_kernel_counter *head, **tail = &head;

extern "C" void gm_emu_kernel_register(gm_emu_kernel_counter *c) {
  std::lock_guard<std::mutex> g(registry_lock);
  c->next = nullptr;
  *tail = c; // appended: registration order is stable
  tail = &c->next;
}

extern "C" size_t gm_emu_kernel_stats(gm_emu_kernel_counter *out, size_t cap) {
  std::lock_guard<std::mutex> g(registry_lock);
  size_t n = 0;
  for (gm_emu_kernel_counter *c = head; c; c = c->next, n++) {
    if (n >= cap) continue;
    out[n] = *c;
    out[n].launches = __atomic_load_n(&c->launches, __ATOMIC_RELAXED);
    out[n].parallel_launches = __atomic_load_n(&c->parallel_launches, __ATOMIC_RELAXED);
    out[n].next = nullptr;
  }
  return n;
}
