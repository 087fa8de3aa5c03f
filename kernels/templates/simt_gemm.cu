// SIMT tile GEMM C = A * B^T (A: M x K, B: N x K, both K-major; C: M x N), one CTA per {{TILE_M}}x{{TILE_N}} tile,
// one UniversalFMA per (thread, value) of the tiled MMA's C partition.
// {{DESCRIPTION}}
extern "C" __global__ void __launch_bounds__({{THREADS}}) {{KERNEL}}(const float* __restrict__ A,
                                                                 const float* __restrict__ B,
                                                                 float* __restrict__ C) {
  const unsigned t = threadIdx.x;
  float acc[{{VALUES}}];
#pragma unroll
  for (unsigned v = 0; v < {{VALUES}}u; ++v) acc[v] = 0.0f;
  for (unsigned k = 0; k < {{K}}u; ++k) {
#pragma unroll
    for (unsigned v = 0; v < {{VALUES}}u; ++v) {
      acc[v] = fmaf(A[{{A_OFFSET}}], B[{{B_OFFSET}}], acc[v]);  // (t, v, k) -> A(m, k), B(n, k)
    }
  }
#pragma unroll
  for (unsigned v = 0; v < {{VALUES}}u; ++v) C[{{C_OFFSET}}] = acc[v];  // (t, v) -> C(m, n)
}
