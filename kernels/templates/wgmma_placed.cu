// wgmma.mma_async {{INSTR}} on operands that threads placed in shared memory at addresses layoutcheck computed
// (no TMA): the descriptor experiments of docs/hopper.md. A ({{M}}x{{K}}) and B ({{N}}x{{K}}) elements i (colex,
// mn + MN*k) are stored at smem bytes addrA[i], addrB[i] of one 1024-byte aligned buffer; K-block kb reads A through
// descA[kb] and B through descB[kb] (words for a buffer at shared address 0; the start field adds the base / 16).
// {{DESCRIPTION}}
// Each thread dumps its raw accumulators: out[t * {{NACC}} + v] = d[v].
extern "C" __global__ void __launch_bounds__(128) {{KERNEL}}(const unsigned short* __restrict__ gA,
                                                       const unsigned short* __restrict__ gB,
                                                       const unsigned* __restrict__ addrA,
                                                       const unsigned* __restrict__ addrB,
                                                       const unsigned long long* __restrict__ descA,
                                                       const unsigned long long* __restrict__ descB,
                                                       float* __restrict__ out) {
  __shared__ alignas(1024) unsigned char smem[{{SMEM_BYTES}}];
  const unsigned t = threadIdx.x;
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  for (unsigned i = t; i < {{SMEM_BYTES}}u / 4u; i += 128u) reinterpret_cast<unsigned*>(smem)[i] = 0u;
  __syncthreads();
  for (unsigned i = t; i < {{M}}u * {{K}}u; i += 128u)
    *reinterpret_cast<unsigned short*>(smem + addrA[i]) = gA[i];
  for (unsigned i = t; i < {{N}}u * {{K}}u; i += 128u)
    *reinterpret_cast<unsigned short*>(smem + addrB[i]) = gB[i];
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // generic-proxy stores -> async-proxy reads
  __syncthreads();
  float d[{{NACC}}];
#pragma unroll
  for (int i = 0; i < {{NACC}}; ++i) d[i] = 0.0f;
#pragma unroll
  for (unsigned kb = 0; kb < {{KBLOCKS}}u; ++kb) {
    const unsigned long long desc_a = descA[kb] + (base >> 4);
    const unsigned long long desc_b = descB[kb] + (base >> 4);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %{{SCALE_ARG}}, 0;\n"
                 "{{WGMMA}}\n}\n"
                 : {{D_OPERANDS}}
                 : "l"(desc_a), "l"(desc_b), "r"(1u)
                 : "memory");
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  }
#pragma unroll
  for (unsigned v = 0; v < {{NACC}}u; ++v) out[t * {{NACC}}u + v] = d[v];
}
