#include "view.h"

#include <stdio.h>
#include <stdlib.h>

/* A backward axis (negative stride) reaches below the displacement by
 * (dims - 1) * |stride|; a forward one above it. */
size_t gm_mat_lowest(const gm_mat *m) {
  size_t lo = m->displacement;
  if (m->size == 0 || m->contiguous) return lo;
  for (int i = 0; i < m->rank; i++)
    if (m->strides[i] < 0) lo -= (m->dims[i] - 1) * (size_t)(-m->strides[i]);
  return lo;
}

size_t gm_mat_extent(const gm_mat *m) {
  if (m->size == 0) return 0;
  if (m->contiguous) return m->size;
  size_t e = 1;
  for (int i = 0; i < m->rank; i++)
    e += (m->dims[i] - 1) * (size_t)(m->strides[i] < 0 ? -m->strides[i] : m->strides[i]);
  return e;
}

bool gm_mat_self_overlaps(const gm_mat *m) {
  if (m->contiguous) return false;
  for (int i = 0; i < m->rank; i++)
    if (m->dims[i] > 1 && m->strides[i] == 0) return true;
  return false;
}

/* Size-1 axes do not matter: they are never stepped along. */
void gm_mat_update_contiguous(gm_mat *m) {
  int64_t s = 1;
  bool c = true;
  for (int i = m->rank - 1; i >= 0 && c && m->size; i--) {
    if (m->dims[i] != 1 && m->strides[i] != s) c = false;
    s *= (int64_t)m->dims[i];
  }
  m->contiguous = c;
}

/* Unsigned arithmetic: a backward axis's term wraps around, and the sum
 * is the (in-range) storage index. */
size_t gm_mat_storage_index_slow(const gm_mat *m, size_t k) {
  size_t off = m->displacement;
  for (int i = m->rank - 1; i >= 0; i--) {
    off += k % m->dims[i] * (size_t)m->strides[i];
    k /= m->dims[i];
  }
  return off;
}

void gm_dims_text(int rank, const size_t *dims, char *buf, size_t n) {
  size_t len = 0;
  buf[0] = '\0';
  if (rank == 0) snprintf(buf, n, "scalar");
  for (int i = 0; i < rank && len < n; i++) {
    int w = snprintf(buf + len, n - len, i ? "x%zu" : "%zu", dims[i]);
    if (w < 0) break;
    len += (size_t)w;
  }
}

void gm_strides_text(const gm_mat *m, char *buf, size_t n) {
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i <= m->rank && len < n; i++) {
    int w = i == m->rank ? snprintf(buf + len, n - len, "}")
                         : snprintf(buf + len, n - len, i ? ", %lld" : "{%lld", (long long)m->strides[i]);
    if (w < 0) break;
    len += (size_t)w;
  }
  if (m->rank == 0) snprintf(buf, n, "{}");
}

gm_status gm_check_writable(const char *op, const gm_mat *m) {
  if (!gm_mat_self_overlaps(m)) return GM_OK;
  char d[160], s[160];
  gm_dims_text(m->rank, m->dims, d, sizeof d);
  gm_strides_text(m, s, sizeof s);
  return gm_fail(GM_EINVAL, "%scannot write into a view whose elements overlap (an expanded %s view, strides %s)",
                 op ? op : "", d, s);
}

gm_status gm_view_clone(const gm_mat *m, gm_mat **out) {
  gm_mat *v = malloc(sizeof *v);
  if (!v) return gm_fail(GM_ENOMEM, "out of host memory allocating a mat");
  *v = *m;
  gm_vec_ref(v->vec);
  *out = v;
  return GM_OK;
}

/* The range error of subscript s on axis a of m (the dims are formatted
 * only here: check_sub runs on every index of every view). */
static gm_status sub_range_error(const gm_mat *m, int a, const gm_view_sub *s) {
  char d[160];
  gm_dims_text(m->rank, m->dims, d, sizeof d);
  size_t n = m->dims[a];
  if (s->select)
    return gm_fail(GM_ERANGE, "index %zu is out of range 1..%zu on axis %d of a %s mat", s->first + 1, n, a + 1, d);
  if (s->count == 0)
    return gm_fail(GM_ERANGE, "start %zu is out of range 1..%zu on axis %d of a %s mat", s->first + 1, n + 1, a + 1, d);
  return gm_fail(GM_ERANGE, "elements from %zu, %zu of them with step %lld, are out of range 1..%zu on axis %d of a %s mat",
                 s->first + 1, s->count, (long long)s->step, n, a + 1, d);
}

/* Checks one subscript against axis a of m: every element it names is on
 * the axis (a backward range may not pass below the first). */
static gm_status check_sub(const gm_mat *m, int a, const gm_view_sub *s) {
  size_t n = m->dims[a];
  if (s->select) return s->first < n ? GM_OK : sub_range_error(m, a, s);
  if (s->step == 0) return gm_fail(GM_EINVAL, "step must not be 0 (axis %d)", a + 1);
  if (s->count == 0) return s->first <= n ? GM_OK : sub_range_error(m, a, s);
  if (s->first >= n) return sub_range_error(m, a, s);
  size_t room = s->step > 0 ? n - 1 - s->first : s->first;
  size_t step = s->step > 0 ? (size_t)s->step : (size_t)0 - (size_t)s->step; /* no -INT64_MIN */
  if (s->count - 1 > room / step) return sub_range_error(m, a, s);
  return GM_OK;
}

/* Each sub checked against the axis it takes; the rank of the result
 * (newaxis adds one, select drops one) in *rank. */
static gm_status check_subs(const gm_mat *m, int n, const gm_view_sub *subs, int *rank) {
  int a = 0, r = 0;
  for (int i = 0; i < n; i++) {
    if (subs[i].newaxis) {
      r++;
      continue;
    }
    if (a >= m->rank) return gm_fail(GM_EINVAL, "too many subscripts for a rank %d mat", m->rank);
    GM_TRY(check_sub(m, a, &subs[i]));
    r += !subs[i].select;
    a++;
  }
  r += m->rank - a;
  if (r > GM_MAX_RANK) return gm_fail(GM_EINVAL, "the view would have rank %d, more than %d", r, GM_MAX_RANK);
  *rank = r;
  return GM_OK;
}

gm_status gm_view_index(const gm_mat *m, int n, const gm_view_sub *subs, gm_mat **out) {
  int rank;
  GM_TRY(check_subs(m, n, subs, &rank));
  gm_mat v = *m;
  int r = 0, a = 0;
  for (int i = 0; i < n || a < m->rank; i++) {
    const gm_view_sub *s = i < n ? &subs[i] : NULL;
    if (s && s->newaxis) {
      v.dims[r] = 1;
      v.strides[r++] = 0;
      continue;
    }
    size_t first = s && (s->select || s->count) ? s->first : 0;
    v.displacement = v.displacement + first * (size_t)m->strides[a];
    if (!(s && s->select)) {
      v.dims[r] = s ? s->count : m->dims[a];
      int64_t step = s && s->count > 1 ? s->step : 1; /* one element: any step, no overflow */
      v.strides[r++] = m->strides[a] * step;
    }
    a++;
  }
  v.rank = r;
  gm_dims_size(r, v.dims, &v.size);
  if (v.size == 0) v.displacement = m->displacement;
  gm_mat_update_contiguous(&v);
  return gm_view_clone(&v, out);
}

gm_status gm_view_narrow(const gm_mat *m, int axis, size_t first, size_t count, gm_mat **out) {
  if (axis < 0 || axis >= m->rank) return gm_fail(GM_EINVAL, "axis %d is out of range 1..%d", axis + 1, m->rank);
  gm_view_sub subs[GM_MAX_RANK];
  for (int a = 0; a <= axis; a++) subs[a] = (gm_view_sub){false, false, 0, m->dims[a], 1};
  subs[axis] = (gm_view_sub){false, false, first, count, 1};
  return gm_view_index(m, axis + 1, subs, out);
}

gm_status gm_view_select(const gm_mat *m, int axis, size_t i, gm_mat **out) {
  if (axis < 0 || axis >= m->rank) return gm_fail(GM_EINVAL, "axis %d is out of range 1..%d", axis + 1, m->rank);
  gm_view_sub subs[GM_MAX_RANK];
  for (int a = 0; a <= axis; a++) subs[a] = (gm_view_sub){false, false, 0, m->dims[a], 1};
  subs[axis] = (gm_view_sub){true, false, i, 1, 1};
  return gm_view_index(m, axis + 1, subs, out);
}

gm_status gm_view_permute(const gm_mat *m, int rank, const int *perm, gm_mat **out) {
  if (rank != m->rank) return gm_fail(GM_EINVAL, "%d axes given for a rank %d mat", rank, m->rank);
  bool seen[GM_MAX_RANK] = {false};
  gm_mat v = *m;
  for (int i = 0; i < rank; i++) {
    if (perm[i] < 0 || perm[i] >= rank || seen[perm[i]])
      return gm_fail(GM_EINVAL, "axes must be a permutation of 1..%d (axis %d at position %d)", rank, perm[i] + 1, i + 1);
    seen[perm[i]] = true;
    v.dims[i] = m->dims[perm[i]];
    v.strides[i] = m->strides[perm[i]];
  }
  gm_mat_update_contiguous(&v);
  return gm_view_clone(&v, out);
}

gm_status gm_view_expand(const gm_mat *m, int rank, const size_t *dims, gm_mat **out) {
  if (rank < m->rank)
    return gm_fail(GM_EINVAL, "cannot expand a %s mat to %s (fewer dimensions)", GM_DIMS_OF(m), GM_DIMS_TEXT(rank, dims));
  gm_mat v = *m;
  v.rank = rank;
  int lead = rank - m->rank;
  for (int i = 0; i < rank; i++) {
    int a = i - lead;
    bool same = a >= 0 && m->dims[a] == dims[i];
    if (!same && a >= 0 && m->dims[a] != 1)
      return gm_fail(GM_EINVAL, "cannot expand a %s mat to %s (axis %d has size %zu, not 1)", GM_DIMS_OF(m),
                     GM_DIMS_TEXT(rank, dims), a + 1, m->dims[a]);
    v.dims[i] = dims[i];
    v.strides[i] = same ? m->strides[a] : 0;
  }
  GM_TRY(gm_dims_size(rank, v.dims, &v.size));
  if (v.size == 0) v.displacement = m->displacement;
  gm_mat_update_contiguous(&v);
  return gm_view_clone(&v, out);
}

static void row_major(int rank, const size_t *dims, int64_t *strides) {
  int64_t s = 1;
  for (int i = rank - 1; i >= 0; i--) {
    strides[i] = s;
    s *= (int64_t)dims[i];
  }
}

/* Torch7's rule: the old axes fall into chunks of mutually contiguous
 * axes; each chunk must be split or merged into whole new axes. */
bool gm_view_strides_for(const gm_mat *m, int rank, const size_t *dims, int64_t *strides) {
  if (m->contiguous || m->size == 0 || m->rank == 0) {
    row_major(rank, dims, strides);
    return true;
  }
  int vd = rank - 1;
  int64_t base = m->strides[m->rank - 1];
  size_t tn = 1, vn = 1;
  for (int td = m->rank - 1; td >= 0; td--) {
    tn *= m->dims[td];
    if (td == 0 || (m->dims[td - 1] != 1 && m->strides[td - 1] != (int64_t)tn * base)) {
      while (vd >= 0 && (vn < tn || dims[vd] == 1)) {
        strides[vd] = (int64_t)vn * base;
        vn *= dims[vd];
        vd--;
      }
      if (vn != tn) return false;
      if (td > 0) {
        base = m->strides[td - 1];
        tn = vn = 1;
      }
    }
  }
  return vd == -1;
}

gm_status gm_view_dims(const gm_mat *m, int rank, const size_t *dims, gm_mat **out) {
  if (rank < 0 || rank > GM_MAX_RANK) return gm_fail(GM_EINVAL, "rank %d is out of range 0..%d", rank, GM_MAX_RANK);
  size_t size;
  GM_TRY(gm_dims_size(rank, dims, &size));
  if (size != m->size)
    return gm_fail(GM_EINVAL, "a %s mat (%zu elements) cannot be viewed as %s (%zu elements)", GM_DIMS_OF(m), m->size,
                   GM_DIMS_TEXT(rank, dims), size);
  gm_mat v = *m;
  if (!gm_view_strides_for(m, rank, dims, v.strides)) {
    char s[160];
    gm_strides_text(m, s, sizeof s);
    return gm_fail(GM_EINVAL, "a non-contiguous %s view (strides %s) cannot be viewed as %s without a copy; use m:contiguous() first",
                   GM_DIMS_OF(m), s, GM_DIMS_TEXT(rank, dims));
  }
  v.rank = rank;
  for (int i = 0; i < rank; i++) v.dims[i] = dims[i];
  gm_mat_update_contiguous(&v);
  return gm_view_clone(&v, out);
}

/* A view whose axes are a permutation of a contiguous block (a:t(),
 * m:permute(...)) reduces in place on that block: *base gets the block in
 * its own order and *base_axis the reduced axis there.  Only when the
 * axes that remain keep their order, so the result's layout is the
 * view's; otherwise (and for every other view) false: the operand is
 * staged. */
bool gm_view_permuted_block(const gm_mat *x, int axis, bool any_order, gm_mat **base, int *base_axis) {
  int p[GM_MAX_RANK], r = x->rank;
  for (int i = 0; i < r; i++) p[i] = i;
  for (int i = 1; i < r; i++) /* axes by decreasing stride (insertion sort) */
    for (int j = i; j > 0 && x->strides[p[j]] > x->strides[p[j - 1]]; j--) {
      int t = p[j];
      p[j] = p[j - 1];
      p[j - 1] = t;
    }
  size_t dims[GM_MAX_RANK];
  int64_t want = 1;
  for (int i = r - 1; i >= 0; i--) {
    if (x->dims[p[i]] > 1 && x->strides[p[i]] != want) return false;
    dims[i] = x->dims[p[i]];
    want *= (int64_t)dims[i];
  }
  int prev = -1;
  for (int i = 0; i < r; i++) {
    if (p[i] == axis) {
      *base_axis = i;
      continue;
    }
    if (p[i] < prev && !any_order) return false;
    prev = p[i];
  }
  return gm_mat_view(x, r, dims, x->displacement, base) == GM_OK;
}
