// Tensor-core tile GEMM C = A * B^T with mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32.
// A (M x K) and B (N x K) are K-major fp16 in global memory, staged through swizzled shared memory
// ({{SMEM_LAYOUT}}), read into fragments with ldmatrix.x4 and multiplied; C (M x N) fp32 row-major.
// {{DESCRIPTION}}
#include <cuda_fp16.h>

{{> mma_sync_ops}}

extern "C" __global__ void __launch_bounds__({{THREADS}}) {{KERNEL}}(const __half* __restrict__ gA,
                                                                 const __half* __restrict__ gB,
                                                                 float* __restrict__ gC) {
  __shared__ alignas(1024) __half sA[{{SMEM_A_ELEMS}}];
  __shared__ alignas(1024) __half sB[{{SMEM_B_ELEMS}}];
  const unsigned t = threadIdx.x;
  const unsigned lane = t & 31u;
  const unsigned warp = t >> 5u;
  (void)lane; (void)warp;
  // global -> shared, 16-byte vectors: vector (t, i) -> (row, k) -> global offset and swizzled shared offset
#pragma unroll
  for (unsigned i = 0; i < {{COPY_A_ITERS}}u; ++i)
    *reinterpret_cast<uint4*>(&sA[{{COPY_A_SMEM}}]) = *reinterpret_cast<const uint4*>(&gA[{{COPY_A_GMEM}}]);
#pragma unroll
  for (unsigned i = 0; i < {{COPY_B_ITERS}}u; ++i)
    *reinterpret_cast<uint4*>(&sB[{{COPY_B_SMEM}}]) = *reinterpret_cast<const uint4*>(&gB[{{COPY_B_GMEM}}]);
  __syncthreads();

{{> mma_sync_tile}}
}
