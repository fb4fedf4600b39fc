/* The memory report of gm.cuda_room (MGL's CUDA-ROOM): one device's
 * arrays, pooled and pinned bytes and the copy counters, as text. */
#ifndef GM_CORE_ROOM_H
#define GM_CORE_ROOM_H

#include <stdbool.h>
#include <stddef.h>

struct gm_device;

/* Writes the report of d into buf (n bytes, truncated if shorter; 512
 * always suffice); verbose is MGL's long form, else the one-line-each
 * short form; numbers grouped as gm_format_grouped does (format.h). */
void gm_room_report(struct gm_device *d, bool verbose, char *buf, size_t n);

#endif
