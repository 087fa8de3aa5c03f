// Warp permute_layout (seed 002): a warp moves each stage's {{ROWS}}x{{COLS}} fp32 block from the source layout to the
// destination layout through registers, the iteration index XOR-swizzled per lane so that both shared-memory
// phases are bank-conflict-free; __syncwarp between the phases.
// {{DESCRIPTION}}
extern "C" __global__ void __launch_bounds__(32) {{KERNEL}}(const float* __restrict__ src, float* __restrict__ dst) {
  __shared__ float sSrc[{{ELEMS}}], sDst[{{ELEMS}}];
  const unsigned lane = threadIdx.x;
  for (unsigned i = lane; i < {{ELEMS}}u; i += 32u) { sSrc[i] = src[i]; sDst[i] = 0.0f; }
  __syncwarp();
  // volatile: one 32-bit shared access per element, exactly as the bank model is asked about (no STS.128 merging)
  volatile float* vSrc = sSrc;
  volatile float* vDst = sDst;
  for (unsigned s = 0; s < {{STAGES}}u; ++s) {
    float regs[{{P}}];
#pragma unroll
    for (unsigned r = 0; r < {{P}}u; ++r) regs[r] = vSrc[{{SRC_OFFSET}}];  // (lane, r ^ swz(lane), s) -> source
    __syncwarp();
#pragma unroll
    for (unsigned r = 0; r < {{P}}u; ++r) vDst[{{DST_OFFSET}}] = regs[r];  // same element -> destination
    __syncwarp();
  }
  for (unsigned i = lane; i < {{ELEMS}}u; i += 32u) dst[i] = sDst[i];
}
