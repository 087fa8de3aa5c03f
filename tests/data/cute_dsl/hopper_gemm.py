"""A Hopper TMA + wgmma GEMM in the CuTe DSL (C = A B^T, A (M,K) and B (N,K) K-major, f16 in, f32 accumulate),
in the style of CUTLASS's ``examples/python/CuTeDSL/hopper/dense_gemm.py``: the shared-memory tiles are the GMMA
128-byte swizzle atoms tiled to (tile, K, stages), filled by TMA; two warpgroups of 64x128x16 wgmma.

    layoutcheck cute-dsl tests/data/cute_dsl/hopper_gemm.py::gemm --arch sm_90a \
        --args f16[512,256] f16[512,256] f32[512,512]
"""

import cutlass
import cutlass.cute as cute
import cutlass.utils.hopper_helpers as sm90_utils
from cutlass.cute.nvgpu import OperandMajorMode, cpasync
from cutlass.tensor_utils import LayoutEnum

BM, BN, BK, STAGES = 128, 128, 64, 4


class HopperGemm:
    def buffer_elems(self, layout):
        return cute.cosize(layout)

    def smem_layouts(self):
        tile = (BM, BN, BK)
        sA = sm90_utils.make_smem_layout_a(LayoutEnum.ROW_MAJOR, tile, cutlass.Float16, STAGES)
        sB = sm90_utils.make_smem_layout_b(LayoutEnum.ROW_MAJOR, tile, cutlass.Float16, STAGES)
        return sA, sB

    @cute.jit
    def __call__(self, mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor):
        tiled_mma = sm90_utils.make_trivial_tiled_mma(cutlass.Float16, cutlass.Float16, OperandMajorMode.K,
                                                      OperandMajorMode.K, cutlass.Float32, (2, 1, 1), (64, BN))
        sA_layout, sB_layout = self.smem_layouts()
        tma_A, tma_mA = cpasync.make_tiled_tma_atom(cpasync.CopyBulkTensorTileG2SOp(), mA,
                                                    cute.slice_(sA_layout, (None, None, 0)), (BM, BK))
        tma_B, tma_mB = cpasync.make_tiled_tma_atom(cpasync.CopyBulkTensorTileG2SOp(), mB,
                                                    cute.slice_(sB_layout, (None, None, 0)), (BN, BK))
        grid = (cute.size(mC, mode=[0]) // BM, cute.size(mC, mode=[1]) // BN, 1)
        self.kernel(tma_A, tma_mA, tma_B, tma_mB, mC, sA_layout, sB_layout, tiled_mma).launch(
            grid=grid, block=(256, 1, 1))

    @cute.kernel
    def kernel(self, tma_A: cute.CopyAtom, mA: cute.Tensor, tma_B: cute.CopyAtom, mB: cute.Tensor,
               mC: cute.Tensor, sA_layout: cute.ComposedLayout, sB_layout: cute.ComposedLayout,
               tiled_mma: cute.TiledMma):
        tidx, _, _ = cute.arch.thread_idx()
        bidx, bidy, _ = cute.arch.block_idx()
        @cute.struct
        class SharedStorage:
            full: cute.struct.MemRange[cutlass.Int64, STAGES]
            empty: cute.struct.MemRange[cutlass.Int64, STAGES]
            sA: cute.struct.Align[cute.struct.MemRange[cutlass.Float16, self.buffer_elems(sA_layout)], 1024]
            sB: cute.struct.Align[cute.struct.MemRange[cutlass.Float16, self.buffer_elems(sB_layout)], 1024]

        storage = cutlass.memory.SmemAllocator().allocate(SharedStorage)
        sA = storage.sA.get_tensor(sA_layout.outer, swizzle=sA_layout.inner)
        sB = storage.sB.get_tensor(sB_layout.outer, swizzle=sB_layout.inner)
        gA = cute.local_tile(mA, (BM, BK), (bidx, None))
        gB = cute.local_tile(mB, (BN, BK), (bidy, None))
        _tAsA, _tAgA = cpasync.tma_partition(tma_A, 0, cute.make_layout(1), cute.group_modes(sA, 0, 2),
                                           cute.group_modes(gA, 0, 2))
        _tBsB, _tBgB = cpasync.tma_partition(tma_B, 0, cute.make_layout(1), cute.group_modes(sB, 0, 2),
                                           cute.group_modes(gB, 0, 2))
        thr_mma = tiled_mma.get_slice(tidx)
        tCsA = thr_mma.partition_A(sA)
        tCsB = thr_mma.partition_B(sB)
        tCrA = tiled_mma.make_fragment_A(tCsA)
        tCrB = tiled_mma.make_fragment_B(tCsB)
        gC = cute.local_tile(mC, (BM, BN), (bidx, bidy))
        tCgC = thr_mma.partition_C(gC)
        acc = tiled_mma.make_fragment_C(tCgC)
        acc.fill(0.0)
        for kb in cutlass.range_constexpr(BK // 16):
            cute.gemm(tiled_mma, acc, tCrA[None, None, kb, 0], tCrB[None, None, kb, 0], acc)
        cute.autovec_copy(acc, tCgC)


gemm = HopperGemm()


class OverlappingStages(HopperGemm):
    def smem_layouts(self):
        sA, sB = super().smem_layouts()
        # bug: re-staging the A tile by hand with a stage stride of half a tile (BM * BK // 2)
        staged = cute.make_layout((BM, BK, STAGES), stride=(BK, 1, BM * BK // 2))
        return cute.make_composed_layout(sA.inner, 0, staged), sB


gemm_overlapping_stages = OverlappingStages()


class OneStageBuffers(HopperGemm):
    def buffer_elems(self, layout):
        # bug: the shared-storage buffers are sized for one (BM|BN) x BK stage; the layouts hold STAGES of them
        return cute.cosize(cute.slice_(layout, (None, None, 0)))


gemm_one_stage_buffers = OneStageBuffers()
