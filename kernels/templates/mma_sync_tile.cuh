  // templates/mma_sync_tile.cuh (inlined by layoutcheck.codegen): sA, sB hold the tile's operands in shared memory;
  // per k-tile, ldmatrix.x4 at the row-provider addresses of the tiled MMA's A/B TV layouts, then mma.sync per atom;
  // C stored through tv_layout_C. Needs t, lane, warp, sA, sB, gC in scope.
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
