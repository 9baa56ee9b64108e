/* The dot products of the float-array vectors (vec.ml) in the order the
   list model fixes (vdot, theories/rh/instance.v): 8 interleaved lanes,
   lane j the running sum from +0.0 of the products at positions j, j + 8,
   j + 16, ... in that order; then ((s0 + s1) + s2) + ... + s7.  Every
   product and every sum is one IEEE binary64 operation rounded to nearest:
   no fused multiply-add (-ffp-contract=off; the AVX2 code is compiled for
   avx2 without fma), no reassociation (no -ffast-math).  With AVX2 (checked
   at run time) lanes 0-3 and 4-7 are two 256-bit registers; otherwise the
   same order in portable C.  The callers (vec.ml) check the lengths. */

#define CAML_NAME_SPACE
#include <stdlib.h>
#include <caml/mlvalues.h>
#include <caml/alloc.h>

#define LANES 8

/* ((s[0] + s[st]) + s[2st]) + ... + s[7st]: the 8 lanes combined left to right. */
static double combine_lanes(const double *s, long st)
{
  double r = s[0];
  for (int j = 1; j < LANES; j++) r = r + s[j * st];
  return r;
}

static double combine(const double *s) { return combine_lanes(s, 1); }

/* Σ x[t*sx]·y[t*sy], t < n, in the lane order: portable. */
static double dot_strided(const double *x, long sx, const double *y, long sy, long n)
{
  double s[LANES] = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };
  long t = 0;
  for (; t + LANES <= n; t += LANES)
    for (int j = 0; j < LANES; j++) s[j] = s[j] + x[(t + j) * sx] * y[(t + j) * sy];
  for (int j = 0; t + j < n; j++) s[j] = s[j] + x[(t + j) * sx] * y[(t + j) * sy];
  return combine(s);
}

/* acc[j*m + i] += a[i]·b for i < m: lane j of m sums at once, portable. */
static void axpy_lane(double *acc, const double *a, double b, long m)
{
  for (long i = 0; i < m; i++) acc[i] = acc[i] + a[i] * b;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX2_PATH 1

__attribute__((target("avx2")))
static double dot_avx2(const double *x, const double *y, long n)
{
  __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
  long t = 0;
  for (; t + LANES <= n; t += LANES) {
    lo = _mm256_add_pd(lo, _mm256_mul_pd(_mm256_loadu_pd(x + t), _mm256_loadu_pd(y + t)));
    hi = _mm256_add_pd(hi, _mm256_mul_pd(_mm256_loadu_pd(x + t + 4), _mm256_loadu_pd(y + t + 4)));
  }
  double s[LANES];
  _mm256_storeu_pd(s, lo);
  _mm256_storeu_pd(s + 4, hi);
  for (int j = 0; t + j < n; j++) s[j] = s[j] + x[t + j] * y[t + j];
  return combine(s);
}

/* Four rows at once: out[r] = dot_avx2(x + r·ld, y, n) for r < 4, each
   row in its own two registers (the same lanes, sums and order as
   dot_avx2); the rows share the loads of y. */
__attribute__((target("avx2")))
static void dot4_avx2(const double *x, long ld, const double *y, long n, double *out)
{
  __m256d lo[4], hi[4];
  for (int r = 0; r < 4; r++) lo[r] = hi[r] = _mm256_setzero_pd();
  long t = 0;
  for (; t + LANES <= n; t += LANES) {
    __m256d yl = _mm256_loadu_pd(y + t), yh = _mm256_loadu_pd(y + t + 4);
    for (int r = 0; r < 4; r++) {
      lo[r] = _mm256_add_pd(lo[r], _mm256_mul_pd(_mm256_loadu_pd(x + r * ld + t), yl));
      hi[r] = _mm256_add_pd(hi[r], _mm256_mul_pd(_mm256_loadu_pd(x + r * ld + t + 4), yh));
    }
  }
  for (int r = 0; r < 4; r++) {
    const double *xr = x + r * ld;
    double s[LANES];
    _mm256_storeu_pd(s, lo[r]);
    _mm256_storeu_pd(s + 4, hi[r]);
    for (int j = 0; t + j < n; j++) s[j] = s[j] + xr[t + j] * y[t + j];
    out[r] = combine(s);
  }
}

__attribute__((target("avx2")))
static void axpy_avx2(double *acc, const double *a, double b, long m)
{
  __m256d bb = _mm256_set1_pd(b);
  long i = 0;
  for (; i + 4 <= m; i += 4)
    _mm256_storeu_pd(acc + i, _mm256_add_pd(_mm256_loadu_pd(acc + i), _mm256_mul_pd(_mm256_loadu_pd(a + i), bb)));
  for (; i < m; i++) acc[i] = acc[i] + a[i] * b;
}

/* acc[i] += a[i]·b[0], then a[8ld + i]·b[8], a[16ld + i]·b[16],
   a[24ld + i]·b[24], for i < m: four rows of one lane (rows t, t + 8,
   t + 16, t + 24 of a matrix of row length ld) added in that order, as
   four axpy_avx2 calls would, with acc loaded and stored once. */
__attribute__((target("avx2")))
static void axpy4_avx2(double *acc, const double *a, long ld, const double *b, long m)
{
  __m256d b0 = _mm256_set1_pd(b[0]), b1 = _mm256_set1_pd(b[8]), b2 = _mm256_set1_pd(b[16]),
          b3 = _mm256_set1_pd(b[24]);
  const double *a0 = a, *a1 = a + 8 * ld, *a2 = a + 16 * ld, *a3 = a + 24 * ld;
  long i = 0;
  for (; i + 4 <= m; i += 4) {
    __m256d s = _mm256_loadu_pd(acc + i);
    s = _mm256_add_pd(s, _mm256_mul_pd(_mm256_loadu_pd(a0 + i), b0));
    s = _mm256_add_pd(s, _mm256_mul_pd(_mm256_loadu_pd(a1 + i), b1));
    s = _mm256_add_pd(s, _mm256_mul_pd(_mm256_loadu_pd(a2 + i), b2));
    s = _mm256_add_pd(s, _mm256_mul_pd(_mm256_loadu_pd(a3 + i), b3));
    _mm256_storeu_pd(acc + i, s);
  }
  for (; i < m; i++) {
    double s = acc[i];
    s = s + a0[i] * b[0];
    s = s + a1[i] * b[8];
    s = s + a2[i] * b[16];
    s = s + a3[i] * b[24];
    acc[i] = s;
  }
}

/* w[i*k + j] = u[i*k + j] - (0.0 + a[i]·b[j]): vec.ml's sub_outer, the
   same three operations per entry (the 0.0 + turns a product -0.0 into
   +0.0, as the list model's sum from 0.0 does). */
__attribute__((target("avx2")))
static void sub_outer_avx2(double *w, const double *u, const double *a, const double *b, long m, long k)
{
  __m256d zero = _mm256_setzero_pd();
  for (long i = 0; i < m; i++) {
    __m256d ai = _mm256_set1_pd(a[i]);
    const double *ur = u + i * k;
    double *wr = w + i * k;
    long j = 0;
    for (; j + 4 <= k; j += 4)
      _mm256_storeu_pd(wr + j, _mm256_sub_pd(_mm256_loadu_pd(ur + j),
                                             _mm256_add_pd(zero, _mm256_mul_pd(ai, _mm256_loadu_pd(b + j)))));
    for (; j < k; j++) wr[j] = ur[j] - (0.0 + a[i] * b[j]);
  }
}

/* Rows t, t + 8, t + 16, t + 24 of u (m×k) for sub_outer_tl_avx2: those
   rows of w = u − a bᵀ as sub_outer_avx2 writes them, and the four rows
   weighted by a added into one lane al of the scratch in that order
   (axpy4_avx2's sums).  The entries of w eight cache lines ahead are
   asked for (a prefetch, which changes no number): w is a fresh array,
   often not in the cache, and its lines are read before being written. */
#define PREFETCH_AHEAD 64
__attribute__((target("avx2")))
static void sub_outer_rows4(double *w, const double *u, const double *a, const double *b, double *al, long t, long m,
                            long k)
{
  long room = (m - t - 24) * k - PREFETCH_AHEAD;   /* w3 + j + PREFETCH_AHEAD within w while j < room */
  __m256d zero = _mm256_setzero_pd();
  const double *u0 = u + t * k, *u1 = u0 + 8 * k, *u2 = u0 + 16 * k, *u3 = u0 + 24 * k;
  double *w0 = w + t * k, *w1 = w0 + 8 * k, *w2 = w0 + 16 * k, *w3 = w0 + 24 * k;
  double c0 = a[t], c1 = a[t + 8], c2 = a[t + 16], c3 = a[t + 24];
  __m256d a0 = _mm256_set1_pd(c0), a1 = _mm256_set1_pd(c1), a2 = _mm256_set1_pd(c2), a3 = _mm256_set1_pd(c3);
  long j = 0;
  for (; j + 4 <= k; j += 4) {
    if ((j & 7) == 0 && j < room) {
      __builtin_prefetch(w0 + j + PREFETCH_AHEAD, 1);
      __builtin_prefetch(w1 + j + PREFETCH_AHEAD, 1);
      __builtin_prefetch(w2 + j + PREFETCH_AHEAD, 1);
      __builtin_prefetch(w3 + j + PREFETCH_AHEAD, 1);
    }
    __m256d bj = _mm256_loadu_pd(b + j), s = _mm256_loadu_pd(al + j);
    __m256d x0 = _mm256_loadu_pd(u0 + j), x1 = _mm256_loadu_pd(u1 + j), x2 = _mm256_loadu_pd(u2 + j),
            x3 = _mm256_loadu_pd(u3 + j);
    _mm256_storeu_pd(w0 + j, _mm256_sub_pd(x0, _mm256_add_pd(zero, _mm256_mul_pd(a0, bj))));
    _mm256_storeu_pd(w1 + j, _mm256_sub_pd(x1, _mm256_add_pd(zero, _mm256_mul_pd(a1, bj))));
    _mm256_storeu_pd(w2 + j, _mm256_sub_pd(x2, _mm256_add_pd(zero, _mm256_mul_pd(a2, bj))));
    _mm256_storeu_pd(w3 + j, _mm256_sub_pd(x3, _mm256_add_pd(zero, _mm256_mul_pd(a3, bj))));
    s = _mm256_add_pd(s, _mm256_mul_pd(x0, a0));
    s = _mm256_add_pd(s, _mm256_mul_pd(x1, a1));
    s = _mm256_add_pd(s, _mm256_mul_pd(x2, a2));
    s = _mm256_add_pd(s, _mm256_mul_pd(x3, a3));
    _mm256_storeu_pd(al + j, s);
  }
  for (; j < k; j++) {
    w0[j] = u0[j] - (0.0 + c0 * b[j]);
    w1[j] = u1[j] - (0.0 + c1 * b[j]);
    w2[j] = u2[j] - (0.0 + c2 * b[j]);
    w3[j] = u3[j] - (0.0 + c3 * b[j]);
    double s = al[j];
    s = s + u0[j] * c0;
    s = s + u1[j] * c1;
    s = s + u2[j] * c2;
    s = s + u3[j] * c3;
    al[j] = s;
  }
}

/* Row t of u alone, as sub_outer_rows4 does each of its rows. */
__attribute__((target("avx2")))
static void sub_outer_row1(double *w, const double *u, const double *a, const double *b, double *al, long t, long k)
{
  __m256d zero = _mm256_setzero_pd();
  const double *ur = u + t * k;
  double *wr = w + t * k;
  double c0 = a[t];
  __m256d a0 = _mm256_set1_pd(c0);
  long j = 0;
  for (; j + 4 <= k; j += 4) {
    __m256d x0 = _mm256_loadu_pd(ur + j);
    _mm256_storeu_pd(wr + j, _mm256_sub_pd(x0, _mm256_add_pd(zero, _mm256_mul_pd(a0, _mm256_loadu_pd(b + j)))));
    _mm256_storeu_pd(al + j, _mm256_add_pd(_mm256_loadu_pd(al + j), _mm256_mul_pd(x0, a0)));
  }
  for (; j < k; j++) {
    wr[j] = ur[j] - (0.0 + c0 * b[j]);
    al[j] = al[j] + ur[j] * c0;
  }
}

/* One pass over u (m×k) for two results: w = u − a bᵀ as sub_outer_avx2,
   and into the lane scratch acc (8 rows of k) the rows of u weighted by a,
   as rh_vec_matmul_tl adds them for uᵀ·a: lane l gets rows l, l + 8,
   l + 16, ... in that order.  In blocks of 32 consecutive rows, so that u
   is read and w written front to back: in each block, lane by lane, the
   lane's four rows of the block in one pass (sub_outer_rows4); then the
   last rows (fewer than 32), lane by lane, four at a time while the lane
   has four, then one at a time.  Each lane still gets its rows in
   increasing order, the blocks coming in order. */
__attribute__((target("avx2")))
static void sub_outer_tl_avx2(double *w, const double *u, const double *a, const double *b, double *acc, long m,
                              long k)
{
  long t0 = 0;
  for (; t0 + 4 * LANES <= m; t0 += 4 * LANES)
    for (long l = 0; l < LANES; l++) sub_outer_rows4(w, u, a, b, acc + l * k, t0 + l, m, k);
  for (long l = 0; l < LANES && t0 + l < m; l++) {
    long t = t0 + l;
    for (; t + 3 * LANES < m; t += 4 * LANES) sub_outer_rows4(w, u, a, b, acc + l * k, t, m, k);
    for (; t < m; t += LANES) sub_outer_row1(w, u, a, b, acc + l * k, t, k);
  }
}

static int avx2(void)
{
  static int known = -1;
  if (known < 0) known = getenv("RH_NO_AVX2") == NULL && __builtin_cpu_supports("avx2");
  return known;
}
#else
static int avx2(void) { return 0; }
#endif

static double dot(const double *x, const double *y, long n)
{
#ifdef HAVE_AVX2_PATH
  if (avx2()) return dot_avx2(x, y, n);
#endif
  return dot_strided(x, 1, y, 1, n);
}

static void axpy(double *acc, const double *a, double b, long m)
{
#ifdef HAVE_AVX2_PATH
  if (avx2()) { axpy_avx2(acc, a, b, m); return; }
#endif
  axpy_lane(acc, a, b, m);
}

#define D(v) ((double *)(v))

value rh_vec_sub_outer(value w, value u, value a, value b)
{
  long m = (long)(Wosize_val(a) / Double_wosize), k = (long)(Wosize_val(b) / Double_wosize);
#ifdef HAVE_AVX2_PATH
  if (avx2()) { sub_outer_avx2(D(w), D(u), D(a), D(b), m, k); return Val_unit; }
#endif
  for (long i = 0; i < m; i++)
    for (long j = 0; j < k; j++) D(w)[i * k + j] = D(u)[i * k + j] - (0.0 + D(a)[i] * D(b)[j]);
  return Val_unit;
}

/* rh_vec_sub_outer's w = u − a bᵀ (u m×k, a of length m, b of length k)
   and, in the same pass over u, c = uᵀ·a (length k) as rh_vec_matmul_tl
   computes it with k = 1 (u read as an m×k matrix): the same lane
   scratch, each lane's rows in increasing order, the same sums; then each
   c[j] the lanes added left to right.  Without room for the scratch, w
   alone, and c by the strided dots of matmul_tl's own fallback. */
value rh_vec_sub_outer_tl(value w, value u, value a, value b, value c)
{
  long m = (long)(Wosize_val(a) / Double_wosize), k = (long)(Wosize_val(b) / Double_wosize);
  double *acc = malloc(sizeof(double) * LANES * (k > 0 ? k : 1));
  if (acc == NULL) {
    rh_vec_sub_outer(w, u, a, b);
    for (long j = 0; j < k; j++) D(c)[j] = dot_strided(D(u) + j, k, D(a), 1, m);
    return Val_unit;
  }
  for (long q = 0; q < LANES * k; q++) acc[q] = 0.0;
#ifdef HAVE_AVX2_PATH
  if (avx2())
    sub_outer_tl_avx2(D(w), D(u), D(a), D(b), acc, m, k);
  else
#endif
  for (long t = 0; t < m; t++) {
    const double *ur = D(u) + t * k;
    double *wr = D(w) + t * k, *al = acc + (t % LANES) * k, at = D(a)[t];
    for (long j = 0; j < k; j++) {
      wr[j] = ur[j] - (0.0 + at * D(b)[j]);
      al[j] = al[j] + ur[j] * at;
    }
  }
  for (long j = 0; j < k; j++) D(c)[j] = combine_lanes(acc + j, k);
  free(acc);
  return Val_unit;
}

/* dot u[uo, uo+n) v[vo, vo+n) */
double rh_vec_dot(value u, intnat uo, value v, intnat vo, intnat n)
{
  return dot(D(u) + uo, D(v) + vo, n);
}

value rh_vec_dot_byte(value u, value uo, value v, value vo, value n)
{
  return caml_copy_double(rh_vec_dot(u, Long_val(uo), v, Long_val(vo), Long_val(n)));
}

/* c (m×k) = a (m×n) · b (n×k), c[i][j] the lane dot of row i of a and
   column j of b.  k = 1: m contiguous dots (four rows at a time with
   AVX2); else the 8 lanes of row i of c
   in a scratch of 8k numbers, added row of b by row of b. */
value rh_vec_matmul(value a, value b, value c, value vm, value vn, value vk)
{
  long m = Long_val(vm), n = Long_val(vn), k = Long_val(vk);
  if (k == 1) {
    long i = 0;
#ifdef HAVE_AVX2_PATH
    if (avx2())
      for (; i + 4 <= m; i += 4) dot4_avx2(D(a) + i * n, n, D(b), n, D(c) + i);
#endif
    for (; i < m; i++) D(c)[i] = dot(D(a) + i * n, D(b), n);
    return Val_unit;
  }
  double *acc = malloc(sizeof(double) * LANES * (k > 0 ? k : 1));
  if (acc == NULL) {                         /* no room: the same order, a product at a time */
    for (long i = 0; i < m; i++)
      for (long j = 0; j < k; j++) D(c)[i * k + j] = dot_strided(D(a) + i * n, 1, D(b) + j, k, n);
    return Val_unit;
  }
  for (long i = 0; i < m; i++) {
    for (long q = 0; q < LANES * k; q++) acc[q] = 0.0;
    for (long t = 0; t < n; t++) axpy(acc + (t % LANES) * k, D(b) + t * k, D(a)[i * n + t], k);
    for (long j = 0; j < k; j++) D(c)[i * k + j] = combine_lanes(acc + j, k);
  }
  free(acc);
  return Val_unit;
}

value rh_vec_matmul_byte(value *argv, int argn)
{
  (void)argn;
  return rh_vec_matmul(argv[0], argv[1], argv[2], argv[3], argv[4], argv[5]);
}

/* c (m×k) = aᵀ · b with a n×m and b n×k: c[i][j] the lane dot over t of
   a[t][i] and b[t][j].  k = 1: the 8 lanes of all of c in a scratch of 8m
   numbers, row t of a added into lane t mod 8, each lane's rows in
   increasing order (with AVX2, lane by lane, four rows in one pass); else
   one strided dot per entry. */
value rh_vec_matmul_tl(value a, value b, value c, value vm, value vn, value vk)
{
  long m = Long_val(vm), n = Long_val(vn), k = Long_val(vk);
  double *acc = k == 1 ? malloc(sizeof(double) * LANES * (m > 0 ? m : 1)) : NULL;
  if (acc == NULL) {
    for (long i = 0; i < m; i++)
      for (long j = 0; j < k; j++) D(c)[i * k + j] = dot_strided(D(a) + i, m, D(b) + j, k, n);
    return Val_unit;
  }
  for (long q = 0; q < LANES * m; q++) acc[q] = 0.0;
#ifdef HAVE_AVX2_PATH
  if (avx2())                    /* lane by lane, four of its rows at a time, each lane's rows in order */
    for (long l = 0; l < LANES; l++) {
      long t = l;
      for (; t + 3 * LANES < n; t += 4 * LANES) axpy4_avx2(acc + l * m, D(a) + t * m, m, D(b) + t, m);
      for (; t < n; t += LANES) axpy_avx2(acc + l * m, D(a) + t * m, D(b)[t], m);
    }
  else
#endif
  for (long t = 0; t < n; t++) axpy(acc + (t % LANES) * m, D(a) + t * m, D(b)[t], m);
  for (long i = 0; i < m; i++) D(c)[i] = combine_lanes(acc + i, m);
  free(acc);
  return Val_unit;
}

value rh_vec_matmul_tl_byte(value *argv, int argn)
{
  (void)argn;
  return rh_vec_matmul_tl(argv[0], argv[1], argv[2], argv[3], argv[4], argv[5]);
}
