// Ownership of a (tiled) TV layout: thread t of block b writes its id t + T*v into every element (t, v) owns and
// counts the writes per element with an atomic, so a missed element (count 0) or a doubly owned one (count 2) shows.
// {{DESCRIPTION}}
// Generated index map: (t, v, b) -> element offset
//   {{OFFSET}}
extern "C" __global__ void __launch_bounds__({{THREADS}}) {{KERNEL}}(unsigned* __restrict__ owner,
                                                                 unsigned* __restrict__ count) {
  const unsigned t = threadIdx.x;
  const unsigned b = blockIdx.x;
  (void)b;
#pragma unroll 4
  for (unsigned v = 0; v < {{VALUES}}u; ++v) {
    const unsigned off = {{OFFSET}};
    owner[off] = t + {{THREADS}}u * v;
    atomicAdd(&count[off], 1u);
  }
}
