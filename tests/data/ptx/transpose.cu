// The classic shared-memory transpose (32x32 fp32 tile, 32x8 threads): unpadded (a column read is 32-way bank
// conflicted) and padded to 33 columns. transpose.ptx: nvcc -ptx -arch=sm_90 -lineinfo transpose.cu, with the
// layoutcheck run line (the block size, which the kernels do not declare) put first.
template <int PAD>
__device__ void transpose_tile(const float* in, float* out, int n) {
  __shared__ float tile[32][32 + PAD];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
extern "C" __global__ void __launch_bounds__(256) transpose_naive(const float* in, float* out, int n) { transpose_tile<0>(in, out, n); }
extern "C" __global__ void __launch_bounds__(256) transpose_padded(const float* in, float* out, int n) { transpose_tile<1>(in, out, n); }
