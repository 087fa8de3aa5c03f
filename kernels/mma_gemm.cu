// Tensor-core tile GEMM C = A * B^T with mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32.
// A (M x K) and B (N x K) are K-major fp16 in global memory, staged through swizzled shared memory
// ({{SMEM_LAYOUT}}), read into fragments with ldmatrix.x4 and multiplied; C (M x N) fp32 row-major.
// {{DESCRIPTION}}
#include <cuda_fp16.h>

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const __half* p) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}

__device__ __forceinline__ void mma_16816(float* d, const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

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

  float acc[{{C_VALUES}}];
#pragma unroll
  for (unsigned v = 0; v < {{C_VALUES}}u; ++v) acc[v] = 0.0f;
#pragma unroll
  for (unsigned kk = 0; kk < {{K_TILES}}u; ++kk) {
    unsigned a[{{REST_M}}][4], b[{{REST_N}}][2];
#pragma unroll
    for (unsigned rm = 0; rm < {{REST_M}}u; ++rm) ldmatrix_x4(a[rm], &sA[{{LDSM_A}}]);  // row provider of (lane, rm, kk)
#pragma unroll
    for (unsigned p = 0; p < {{REST_N}}u / 2u; ++p) {
      unsigned r[4];
      ldmatrix_x4(r, &sB[{{LDSM_B}}]);  // row provider of (lane, p, kk): n-atoms 2p and 2p+1
      b[2u * p][0] = r[0]; b[2u * p][1] = r[1]; b[2u * p + 1u][0] = r[2]; b[2u * p + 1u][1] = r[3];
    }
#pragma unroll
    for (unsigned rn = 0; rn < {{REST_N}}u; ++rn)
#pragma unroll
      for (unsigned rm = 0; rm < {{REST_M}}u; ++rm) mma_16816(&acc[{{ACC_BASE}}], a[rm], b[rn][0], b[rn][1]);
  }
#pragma unroll
  for (unsigned v = 0; v < {{C_VALUES}}u; ++v) gC[{{C_OFFSET}}] = acc[v];  // (t, v) -> C(m, n)
}
