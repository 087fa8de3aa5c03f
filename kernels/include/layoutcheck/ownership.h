/* layoutcheck/ownership.h -- check a kernel's element ownership against `layoutcheck vectors --format h`.
 *
 * The vectors header of a config NAME (written by `layoutcheck vectors SPEC --format h -o NAME.h`) holds, for a
 * (thread, value) -> tile map over a ROWS x COLS tile (element e = row + ROWS*col, column-major as CuTe):
 *
 *   lc_NAME_row[t + THREADS*v], lc_NAME_col[...]    the tile coordinate (thread t, value v) holds
 *   lc_NAME_owner_start[e] .. [e+1]                 the owners of element e in lc_NAME_owner, as ids t + THREADS*v
 *
 * The owner id of (thread t, value v) is t + THREADS*v: CuTe's colexicographic index of (t, v) in the TV shape
 * (THREADS, VALUES), the same integer layoutcheck's JSON / SARIF counterexamples name owners by (vectors schema 2;
 * schema 1 used t*VALUES + v).
 *
 * This header holds the checks a unit test runs on what its kernel did, on the host or on the device (C99 and CUDA):
 *
 *   lc_element(row, col, ROWS, THREADS, t, v)        element (thread t, value v) must touch
 *   lc_owns(owner_start, owner, e, id)               whether pair id owns element e
 *   lc_cover_errors(owner_start, E, writes, &first)  elements a kernel wrote a different number of times than they
 *                                                    have owners (writes[e]: the kernel's count for element e)
 *   lc_map_errors(row, col, ROWS, N, got, &first)    pair ids whose element got[id] differs from the vectors
 *
 * Pre: the vectors are int32_t arrays (every map below 2^31 elements, as `layoutcheck vectors` writes them).
 * Each *_errors function returns how many entries differ and sets *first to the first one (-1 when none).
 */
#ifndef LAYOUTCHECK_OWNERSHIP_H
#define LAYOUTCHECK_OWNERSHIP_H

#include <stdint.h>

#if defined(__CUDACC__)
#define LC_FN __host__ __device__ static inline
#else
#define LC_FN static inline
#endif

/* The element row + rows*col that (thread, value) holds. */
LC_FN int64_t lc_element(const int32_t *row, const int32_t *col, int64_t rows, int64_t threads, int64_t thread,
                         int64_t value) {
  int64_t id = thread + threads * value;
  return (int64_t)row[id] + rows * (int64_t)col[id];
}

/* Whether owner id (thread + THREADS*value) is one of the owners of element e (the owners are ascending). */
LC_FN int lc_owns(const int32_t *owner_start, const int32_t *owner, int64_t e, int64_t id) {
  for (int64_t k = owner_start[e]; k < owner_start[e + 1]; ++k) {
    if (owner[k] == id) return 1;
    if (owner[k] > id) return 0;
  }
  return 0;
}

/* Elements e < elements whose write count differs from their number of owners. */
LC_FN int64_t lc_cover_errors(const int32_t *owner_start, int64_t elements, const int32_t *writes, int64_t *first) {
  int64_t bad = 0;
  *first = -1;
  for (int64_t e = 0; e < elements; ++e) {
    if (writes[e] != owner_start[e + 1] - owner_start[e]) {
      if (bad++ == 0) *first = e;
    }
  }
  return bad;
}

/* Pair ids id < n whose element got[id] differs from row[id] + rows*col[id]. */
LC_FN int64_t lc_map_errors(const int32_t *row, const int32_t *col, int64_t rows, int64_t n, const int64_t *got,
                            int64_t *first) {
  int64_t bad = 0;
  *first = -1;
  for (int64_t id = 0; id < n; ++id) {
    if (got[id] != (int64_t)row[id] + rows * (int64_t)col[id]) {
      if (bad++ == 0) *first = id;
    }
  }
  return bad;
}

#endif /* LAYOUTCHECK_OWNERSHIP_H */
