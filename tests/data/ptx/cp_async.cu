// cp.async (LDGSTS) into shared memory at chosen shared addresses, one 128-thread CTA: the experiment that decides
// how many shared-memory wavefronts the hardware spends on an LDGSTS's write side
// (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts). Each kernel copies a contiguous global run (so the global
// side is the same everywhere) into shared memory at word offset dst(t) of thread t, 4 times (4 LDGSTS per warp).
// layoutcheck's hypothesis: the write side costs what st.shared of the same width costs at the same addresses
// (gpu/ptx_ncu.py, section ldgsts_ncu). The shared destination of lane t is
//   CG16_*: 16-byte cp.async.cg;  CA8_* / CA4_*: 8- / 4-byte cp.async.ca (.cg takes only 16 bytes).
template <int BYTES, bool CG>
__device__ __forceinline__ void copy(unsigned dst, const void* src) {
  if constexpr (CG)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(src), "n"(BYTES));
}

template <int BYTES, bool CG, int STRIDE, int SKEW, bool XOR>
__device__ void run(const char* in, int* out) {
  __shared__ __align__(1024) char buf[16384 + 1024];
  const unsigned t = threadIdx.x;
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(buf));
  for (int i = 0; i < 4; ++i) {
    unsigned slot = t + 128 * i;                           // the element this copy writes
    unsigned at = slot * STRIDE % 16384;                   // STRIDE bytes apart (wrapping in the 16 KiB buffer)
    unsigned row = at / 128, col = at % 128;               // in 128-byte rows
    if (XOR) col ^= (row % 8) * 16;                        // the 128-byte swizzle (Sw<3,4,3>) on 16-byte chunks
    copy<BYTES, CG>(base + SKEW + row * 128 + col, in + slot * BYTES);
  }
  asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
  __syncthreads();
  if (t == 0) out[0] = buf[SKEW];
}

#define K(name, B, CG, S, SK, X) \
  extern "C" __global__ void __launch_bounds__(128) name(const char* in, int* out) { run<B, CG, S, SK, X>(in, out); }
K(cg16_contiguous, 16, true, 16, 0, false)     // 8 lanes fill one 128-byte row: conflict-free as STS.128
K(cg16_rows, 16, true, 128, 0, false)          // one 16-byte chunk per 128-byte row: 8-way as STS.128
K(cg16_rows_swizzled, 16, true, 128, 0, true)  // the same rows, XOR-swizzled: conflict-free as STS.128
K(cg16_half_rows, 16, true, 64, 0, false)      // 2 chunks per row: 4-way as STS.128
K(ca8_contiguous, 8, false, 8, 0, false)       // conflict-free as STS.64
K(ca8_rows, 8, false, 128, 0, false)           // 16-way as STS.64 (2 half-warps)
K(ca4_contiguous, 4, false, 4, 0, false)       // conflict-free as STS.32
K(ca4_skewed, 4, false, 4, 4, false)           // contiguous but 4 bytes past 128-byte alignment
K(ca4_stride2, 4, false, 8, 0, false)          // 2-way as STS.32
K(ca4_rows, 4, false, 128, 0, false)           // 32-way as STS.32
