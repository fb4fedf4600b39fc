/* The memory report of gm.cuda_room (MGL's CUDA-ROOM): one device's
 * arrays, pooled and pinned bytes and the copy counters, as text. */
#ifndef GM_CORE_ROOM_H
#define GM_CORE_ROOM_H

#include <stdbool.h>
#include <stddef.h>

struct gm_device;

/* Writes the report of d into buf (n bytes, truncated if shorter; 512
 * always suffice); verbose is MGL's long form, else the one-line-each
 * short form. */
void gm_room_report(struct gm_device *d, bool verbose, char *buf, size_t n);
/* v with commas between groups of three digits: "1,234,567" (Lisp's
 * ~:D).  out holds at least 32 bytes. */
void gm_format_grouped(unsigned long long v, char *out);

#endif
