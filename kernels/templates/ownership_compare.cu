// One-pass check of an ownership map (the output of {{OWNER_KERNEL}}): element e must hold the id t + T*v of the
// (thread, value) that the inverse layout maps it to, and a write count of exactly 1. The oracle is computed on the
// device from the inverse layout's expression; both maps are streamed once (16-byte loads, LC_UNROLL of each per
// thread in flight, one grid-stride wave of CTAs), so the check runs at memory bandwidth. The last CTA to finish
// writes the mismatch count to ``result`` (host-mapped: the caller reads it after a stream synchronisation, no copy)
// and resets the device counters in ``state`` for the next call (no memset). {{DESCRIPTION}}
// Generated inverse map: element offset e -> colex index t + T*v + T*V*b
//   {{INVERSE}}
__device__ __forceinline__ unsigned expected_owner(const unsigned e) { return ({{INVERSE}}) % {{IDS}}u; }

__device__ __forceinline__ unsigned wrong(const unsigned owner, const unsigned count, const unsigned e) {
  return (owner != expected_owner(e)) | (count != 1u);
}

#ifndef LC_UNROLL
#define LC_UNROLL 2  // 16-byte vectors of each map loaded per thread before any is compared: 2*LC_UNROLL in flight
#endif

extern "C" __global__ void __launch_bounds__(256) {{KERNEL}}(const unsigned* __restrict__ owner,
                                                         const unsigned* __restrict__ count, const unsigned n,
                                                         unsigned* __restrict__ state,
                                                         volatile unsigned* __restrict__ result) {
  const unsigned step = gridDim.x * blockDim.x;
  const unsigned n4 = n / 4u;
  const uint4* __restrict__ owner4 = reinterpret_cast<const uint4*>(owner);
  const uint4* __restrict__ count4 = reinterpret_cast<const uint4*>(count);
  unsigned local = 0u;
  unsigned q = blockIdx.x * blockDim.x + threadIdx.x;
  for (; q + (LC_UNROLL - 1) * step < n4; q += LC_UNROLL * step) {  // every load of the batch in bounds
    uint4 o[LC_UNROLL], c[LC_UNROLL];
#pragma unroll
    for (int u = 0; u < LC_UNROLL; ++u) {
      o[u] = __ldcs(owner4 + q + u * step);
      c[u] = __ldcs(count4 + q + u * step);
    }
#pragma unroll
    for (int u = 0; u < LC_UNROLL; ++u) {
      const unsigned e = 4u * (q + u * step);
      local += wrong(o[u].x, c[u].x, e) + wrong(o[u].y, c[u].y, e + 1u) + wrong(o[u].z, c[u].z, e + 2u) +
               wrong(o[u].w, c[u].w, e + 3u);
    }
  }
  for (; q < n4; q += step) {  // the last, partial batch
    const uint4 o = __ldcs(owner4 + q);
    const uint4 c = __ldcs(count4 + q);
    const unsigned e = 4u * q;
    local += wrong(o.x, c.x, e) + wrong(o.y, c.y, e + 1u) + wrong(o.z, c.z, e + 2u) + wrong(o.w, c.w, e + 3u);
  }
  for (unsigned e = 4u * n4 + blockIdx.x * blockDim.x + threadIdx.x; e < n; e += step) {
    local += wrong(owner[e], count[e], e);
  }
  for (int s = 16; s > 0; s >>= 1) {
    local += __shfl_down_sync(0xffffffffu, local, s);
  }
  if ((threadIdx.x & 31u) == 0u && local != 0u) {
    atomicAdd(&state[0], local);  // state[0]: mismatches so far in this call
  }
  __threadfence();  // this CTA's count is visible device-wide before the CTA reports that it is done
  __syncthreads();
  if (threadIdx.x == 0u && atomicAdd(&state[1], 1u) == gridDim.x - 1u) {  // state[1]: CTAs done; this one is last
    __threadfence();
    *result = atomicExch(&state[0], 0u);  // every CTA's count, and the counters reset for the next call
    state[1] = 0u;
    __threadfence_system();
  }
}
