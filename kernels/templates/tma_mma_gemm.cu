// Tensor-core tile GEMM C = A * B^T with mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32, operands loaded by TMA.
// A (M x K) and B (N x K) are K-major fp16 in global memory. Thread 0 issues cp.async.bulk.tensor.2d boxes (tensor
// maps encoded on the host by cuTensorMapEncodeTiled, kept in global memory) that complete on one mbarrier and put
// the tiles in shared memory laid out as {{SMEM_LAYOUT}}
// (boxes: {{BOXES}}). Every thread waits on the mbarrier, reads fragments with ldmatrix.x4 at addresses of the same
// layouts and multiplies; C (M x N) fp32 row-major. status[0]: bit 0 mbarrier wait timed out, bit 1 smem misaligned.
// {{DESCRIPTION}}
#include <cuda_fp16.h>

{{> mma_sync_ops}}

// One 2-D tiled TMA load: box at global coordinates (c0, c1) (innermost first) -> shared byte address dst.
__device__ __forceinline__ void tma_load_2d(unsigned dst, const void* tmap, unsigned c0, unsigned c1, unsigned bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
               "[%4];\n" :: "r"(dst), "l"(tmap), "r"(c0), "r"(c1), "r"(bar) : "memory");
}

extern "C" __global__ void __launch_bounds__({{THREADS}}) {{KERNEL}}(const __half* __restrict__ gA,
                                                                 const __half* __restrict__ gB,
                                                                 const void* __restrict__ tmapA,
                                                                 const void* __restrict__ tmapB,
                                                                 float* __restrict__ gC,
                                                                 unsigned* __restrict__ status) {
  (void)gA; (void)gB;  // read through the tensor maps only (passed so that they outlive the launch)
  __shared__ alignas(1024) __half sA[{{SMEM_A_ELEMS}}];
  __shared__ alignas(1024) __half sB[{{SMEM_B_ELEMS}}];
  __shared__ alignas(8) unsigned long long mbar;
  const unsigned t = threadIdx.x;
  const unsigned lane = t & 31u;
  const unsigned warp = t >> 5u;
  (void)lane; (void)warp;
  const unsigned a_base = static_cast<unsigned>(__cvta_generic_to_shared(sA));
  const unsigned b_base = static_cast<unsigned>(__cvta_generic_to_shared(sB));
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  if (((a_base | b_base) & 1023u) != 0u) {  // the TMA swizzle acts on absolute addresses: the model needs 1024-B bases
    if (t == 0u) atomicOr(status, 2u);
    return;
  }
  {{> tma_arm_barrier}}
    // load q of each operand: box origin (c0, c1) and destination byte offset, from the box plan and the layout
#pragma unroll
    for (unsigned q = 0; q < {{BOXES_A}}u; ++q) tma_load_2d(a_base + {{DST_A}}, tmapA, {{C0_A}}, {{C1_A}}, bar);
#pragma unroll
    for (unsigned q = 0; q < {{BOXES_B}}u; ++q) tma_load_2d(b_base + {{DST_B}}, tmapB, {{C0_B}}, {{C1_B}}, bar);
  }
  unsigned done = 0u;
  for (unsigned spin = 0u; done == 0u && spin < (1u << 24); ++spin)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }\n"
                 : "=r"(done) : "r"(bar) : "memory");
  if (done == 0u) atomicOr(status, 1u);

{{> mma_sync_tile}}
}
