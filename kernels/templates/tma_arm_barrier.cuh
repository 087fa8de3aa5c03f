// Thread 0 initialises the mbarrier at `bar`, every thread waits for it, then thread 0 acquires the two tensor
// maps and arms the barrier for {{TX_BYTES}} bytes of TMA traffic; the TMA loads that follow stay inside this
// `if (t == 0u) {` block, which the including template closes. (Shared by the TMA -> smem kernels.)
  if (t == 0u) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" :: "r"(bar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (t == 0u) {
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;\n" :: "l"(tmapA) : "memory");
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;\n" :: "l"(tmapB) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" :: "r"(bar), "r"({{TX_BYTES}}u)
                 : "memory");
