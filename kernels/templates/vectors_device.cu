// Device copies of `layoutcheck vectors --format h` (the lc_NAME_KEY_dev arrays it emits under __CUDACC__), read in
// a __global__ function through the checks of <layoutcheck/ownership.h>: each (thread t, value v) records the
// element the vectors give it and whether the vectors list it among that element's owners.
// {{DESCRIPTION}}
#include <layoutcheck/ownership.h>

{{VECTORS}}

extern "C" __global__ void __launch_bounds__({{THREADS}}) {{KERNEL}}(long long* __restrict__ elem,
                                                                 int* __restrict__ owns) {
  const int64_t t = threadIdx.x;
  for (int64_t v = 0; v < {{VALUES}}; ++v) {
    const int64_t id = t + {{THREADS}} * v;  // the owner id (layoutcheck.witness.owner_id)
    const int64_t e = lc_element({{ARRAY}}_row_dev, {{ARRAY}}_col_dev, {{ROWS}}, {{THREADS}}, t, v);
    elem[id] = e;
    owns[id] = lc_owns({{ARRAY}}_owner_start_dev, {{ARRAY}}_owner_dev, e, id);
  }
}
