"""An Ampere tensor-op GEMM in the CuTe DSL (C = A B^T, A (M,K) and B (N,K) K-major, f16 in, f32 accumulate),
in the style of CUTLASS's ``examples/python/CuTeDSL/ampere/tensorop_gemm.py``: swizzled multi-stage shared-memory
tiles filled by cp.async, a 2x2 TiledMMA of SM80 16x8x16 atoms fed by ldmatrix.

Check it (``gemm`` is correct; each ``gemm_*`` below it carries one bug):

    layoutcheck cute-dsl tests/data/cute_dsl/ampere_gemm.py::gemm --arch sm_80 \
        --args f16[256,128] f16[256,128] f32[256,256]
"""

import cutlass
import cutlass.cute as cute

BM, BN, BK, STAGES = 128, 128, 32, 3


class AmpereGemm:
    def __init__(self, atom_layout=(2, 2, 1)):
        self.atom_layout = atom_layout
        self.threads = 32 * atom_layout[0] * atom_layout[1] * atom_layout[2]

    def smem_layout(self, rows):
        """(rows, BK, STAGES) f16, K-major, 16-byte chunks XOR-swizzled over 8 rows of 64 bytes."""
        atom = cute.make_composed_layout(cute.make_swizzle(2, 3, 3), 0,
                                         cute.make_layout((8, BK), stride=(BK, 1)))
        return cute.tile_to_shape(atom, (rows, BK, STAGES), (0, 1, 2))

    def permutation(self):
        m, n, _ = self.atom_layout
        return (16 * m, 8 * n * 2, 16)

    def g2s_copy(self):
        """cp.async of 128 bits: each thread copies 8 contiguous K elements, 4 threads per 32-element row."""
        atom = cute.make_copy_atom(cute.nvgpu.cpasync.CopyG2SOp(), cutlass.Float16, num_bits_per_copy=128)
        threads = cute.make_layout((self.threads // 4, 4), stride=(4, 1))
        return cute.make_tiled_copy_tv(atom, threads, cute.make_layout((1, 8)))

    @cute.jit
    def __call__(self, mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor):
        sA_layout = self.smem_layout(BM)
        sB_layout = self.smem_layout(BN)
        op = cute.nvgpu.warp.MmaF16BF16Op(cutlass.Float16, cutlass.Float32, (16, 8, 16))
        tiled_mma = cute.make_tiled_mma(op, cute.make_layout(self.atom_layout), permutation_mnk=self.permutation())
        copy_A = self.g2s_copy()
        copy_B = self.g2s_copy()
        grid = (cute.size(mC, mode=[0]) // BM, cute.size(mC, mode=[1]) // BN, 1)
        self.kernel(mA, mB, mC, sA_layout, sB_layout, copy_A, copy_B, tiled_mma).launch(
            grid=grid, block=(self.threads, 1, 1))

    @cute.kernel
    def kernel(self, mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor, sA_layout: cute.ComposedLayout,
               sB_layout: cute.ComposedLayout, copy_A: cute.TiledCopy, copy_B: cute.TiledCopy,
               tiled_mma: cute.TiledMma):
        tidx, _, _ = cute.arch.thread_idx()
        bidx, bidy, _ = cute.arch.block_idx()
        gA = cute.local_tile(mA, (BM, BK), (bidx, None))
        gB = cute.local_tile(mB, (BN, BK), (bidy, None))
        gC = cute.local_tile(mC, (BM, BN), (bidx, bidy))

        smem = cutlass.memory.SmemAllocator()
        sA = smem.allocate_tensor(cutlass.Float16, sA_layout, 16)
        sB = smem.allocate_tensor(cutlass.Float16, sB_layout, 16)

        thr_A = copy_A.get_slice(tidx)
        thr_B = copy_B.get_slice(tidx)
        tAgA, tAsA = thr_A.partition_S(gA), thr_A.partition_D(sA)
        tBgB, tBsB = thr_B.partition_S(gB), thr_B.partition_D(sB)

        thr_mma = tiled_mma.get_slice(tidx)
        tCsA = thr_mma.partition_A(sA)
        tCsB = thr_mma.partition_B(sB)
        tCgC = thr_mma.partition_C(gC)
        tCrA = tiled_mma.make_fragment_A(tCsA[None, None, None, 0])
        tCrB = tiled_mma.make_fragment_B(tCsB[None, None, None, 0])
        tCrC = tiled_mma.make_fragment_C(tCgC)
        tCrC.fill(0.0)

        ldsm = cute.make_copy_atom(cute.nvgpu.warp.LdMatrix8x8x16bOp(False, 4), cutlass.Float16)
        s2r_A = cute.make_tiled_copy_A(ldsm, tiled_mma)
        s2r_B = cute.make_tiled_copy_B(ldsm, tiled_mma)
        tXsA = s2r_A.get_slice(tidx).partition_S(sA)
        tXrA = s2r_A.get_slice(tidx).retile(tCrA)
        tXsB = s2r_B.get_slice(tidx).partition_S(sB)
        tXrB = s2r_B.get_slice(tidx).retile(tCrB)

        for k in range(cute.size(gA, mode=[2])):
            stage = k % STAGES
            cute.copy(copy_A, tAgA[None, None, None, k], tAsA[None, None, None, stage])
            cute.copy(copy_B, tBgB[None, None, None, k], tBsB[None, None, None, stage])
            cute.arch.cp_async_commit_group()
            cute.arch.cp_async_wait_group(0)
            cute.arch.barrier()
            for kb in cutlass.range_constexpr(BK // 16):
                cute.copy(s2r_A, tXsA[None, None, kb, stage], tXrA[None, None, kb])
                cute.copy(s2r_B, tXsB[None, None, kb, stage], tXrB[None, None, kb])
                cute.gemm(tiled_mma, tCrC, tCrA[None, None, kb], tCrB[None, None, kb], tCrC)
            cute.arch.barrier()
        cute.autovec_copy(tCrC, tCgC)


gemm = AmpereGemm()


class OverlappingStages(AmpereGemm):
    def smem_layout(self, rows):
        # bug: the stage stride is half a tile, so stage s+1 overwrites the second half of stage s
        staged = cute.make_layout((rows, BK, STAGES), stride=(BK, 1, rows * BK // 2))
        return cute.make_composed_layout(cute.make_swizzle(2, 3, 3), 0, staged)


gemm_overlapping_stages = OverlappingStages()


class DoubledRows(AmpereGemm):
    def permutation(self):
        # bug: the M permutation (16,2):(1,0) should be 32:1 (or (16,2):(1,16)): both warp rows get the same
        # rows of each 32-row block, so every C element is computed, and stored, by two warps
        return (cute.make_layout((16, 2), stride=(1, 0)), 32, 16)


gemm_doubled_rows = DoubledRows()


class CopySkipsRows(AmpereGemm):
    def g2s_copy(self):
        atom = cute.make_copy_atom(cute.nvgpu.cpasync.CopyG2SOp(), cutlass.Float16, num_bits_per_copy=128)
        # (thread, value) -> row + 64 k in a 64x32 tile: thread t copies row t // 4, k = 8 (t % 4) + v
        tv = cute.make_layout(((4, 32), 8), stride=((512, 1), 64))
        # bug: the tiler says 64 rows, but 128 threads x 8 values cover 32: rows 32..63 of every 64-row block
        # are never copied to shared memory
        return cute.make_tiled_copy(atom, tv, (64, BK))


gemm_copy_skips_rows = CopySkipsRows()
