"""A Blackwell tcgen05 GEMM in the CuTe DSL (C = A B^T, A (M,K) and B (N,K) K-major, f16 in, f32 accumulate),
in the style of CUTLASS's ``examples/python/CuTeDSL/blackwell/dense_gemm.py``: a 1-CTA 128x256x16 UMMA, its
operands staged in shared memory by TMA (``make_tiled_tma_atom_A/B`` over the MMA's partition).

    layoutcheck cute-dsl tests/data/cute_dsl/blackwell_gemm.py::gemm --arch sm_100a \
        --args f16[512,256] f16[512,256] f32[512,512]
"""

import cutlass
import cutlass.cute as cute
import cutlass.utils.blackwell_helpers as sm100_utils
from cutlass.cute.nvgpu import OperandMajorMode, cpasync, tcgen05

MMA_TILER = (128, 256, 64)
STAGES = 3


class BlackwellGemm:
    def smem_layouts(self, tiled_mma):
        sA = sm100_utils.make_smem_layout_a(tiled_mma, MMA_TILER, cutlass.Float16, STAGES)
        sB = sm100_utils.make_smem_layout_b(tiled_mma, MMA_TILER, cutlass.Float16, STAGES)
        return sA, sB

    @cute.jit
    def __call__(self, mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor):
        tiled_mma = sm100_utils.make_trivial_tiled_mma(cutlass.Float16, cutlass.Float16, OperandMajorMode.K,
                                                       OperandMajorMode.K, cutlass.Float32, tcgen05.CtaGroup.ONE,
                                                       MMA_TILER[:2])
        sA_layout, sB_layout = self.smem_layouts(tiled_mma)
        op = cpasync.CopyBulkTensorTileG2SOp(tcgen05.CtaGroup.ONE)
        tma_A, tma_mA = cute.nvgpu.make_tiled_tma_atom_A(op, mA, cute.slice_(sA_layout, (None, None, None, 0)),
                                                         MMA_TILER, tiled_mma)
        tma_B, tma_mB = cute.nvgpu.make_tiled_tma_atom_B(op, mB, cute.slice_(sB_layout, (None, None, None, 0)),
                                                         MMA_TILER, tiled_mma)
        grid = (cute.size(mC, mode=[0]) // MMA_TILER[0], cute.size(mC, mode=[1]) // MMA_TILER[1], 1)
        self.kernel(tma_A, tma_mA, tma_B, tma_mB, sA_layout, sB_layout, tiled_mma).launch(
            grid=grid, block=(128, 1, 1))

    @cute.kernel
    def kernel(self, tma_A: cute.CopyAtom, mA: cute.Tensor, tma_B: cute.CopyAtom, mB: cute.Tensor,
               sA_layout: cute.ComposedLayout, sB_layout: cute.ComposedLayout, tiled_mma: cute.TiledMma):
        tidx, _, _ = cute.arch.thread_idx()
        smem = cutlass.memory.SmemAllocator()
        sA = smem.allocate_tensor(cutlass.Float16, sA_layout.outer, 1024, swizzle=sA_layout.inner)
        sB = smem.allocate_tensor(cutlass.Float16, sB_layout.outer, 1024, swizzle=sB_layout.inner)
        thr_mma = tiled_mma.get_slice(0)
        tCrA = tiled_mma.make_fragment_A(sA)
        tCrB = tiled_mma.make_fragment_B(sB)
        _ = (thr_mma, tCrA, tCrB, tidx)


gemm = BlackwellGemm()


class OverlappingStages(BlackwellGemm):
    def smem_layouts(self, tiled_mma):
        sA, sB = super().smem_layouts(tiled_mma)
        # bug: B's stages re-laid by hand, 4096 elements apart; a 256x64 f16 stage holds 16384
        outer = sB.outer
        staged = cute.make_layout(outer.shape, stride=(*outer.stride[:3], 4096))
        return sA, cute.make_composed_layout(sB.inner, 0, staged)


gemm_overlapping_stages = OverlappingStages()
