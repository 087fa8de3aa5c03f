// print(tiled_mma) of several tiled MMAs as CuTe prints them, for the importer (layoutcheck import). Host-only:
//   g++ -x c++ -std=c++17 -I$CUTLASS/include -I/usr/local/cuda/include -I/usr/local/cuda/include/cccl \
//       cpp_tiled_mma.cpp -o p && ./p > cpp_tiled_mma.txt
// (CUTLASS headers of the nvidia-cutlass wheel). Each block starts with a "# " line naming the make_tiled_mma call
// and ends with @@.
#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/mma_traits_sm80.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
using namespace cute;

template <class M>
void show(char const* what, M const& mma) {
  printf("# %s\n", what); print(mma); printf("@@\n");
}

int main() {
  show("make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{}, Tile<_32,_32,_16>{})",
       make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{}, Tile<_32,_32,_16>{}));
  show("make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{}, Tile<_32,_32,_16>{}) with N permuted",
       make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{},
                      Tile<_32, Layout<Shape<_8,_2,_2>,Stride<_1,_16,_8>>, _16>{}));
  show("make_tiled_mma(SM80_16x8x8_F16F16F16F16_TN{}, Layout<Shape<_4,_1,_1>>{})",
       make_tiled_mma(SM80_16x8x8_F16F16F16F16_TN{}, Layout<Shape<_4,_1,_1>>{}));
  show("make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN{}, Layout<Shape<_2,_4,_1>, Stride<_4,_1,_0>>{}, Tile<_64,_64,_16>{})",
       make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN{}, Layout<Shape<_2,_4,_1>, Stride<_4,_1,_0>>{},
                      Tile<_64,_64,_16>{}));
  show("make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{}, Tile<Layout<Shape<_16,_2>,Stride<_2,_1>>,_16,_16>{})",
       make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{},
                      Tile<Layout<Shape<_16,_2>,Stride<_2,_1>>, _16, _16>{}));
  show("make_tiled_mma(SM90_64x64x16_F32F16F16_SS<GMMA::Major::K,GMMA::Major::K>{}, Layout<Shape<_2,_1,_1>>{})",
       make_tiled_mma(SM90_64x64x16_F32F16F16_SS<GMMA::Major::K,GMMA::Major::K>{}, Layout<Shape<_2,_1,_1>>{}));
  show("make_tiled_mma(UniversalFMA<float,float,float,float>{}, Layout<Shape<_16,_8,_1>>{})",
       make_tiled_mma(UniversalFMA<float,float,float,float>{}, Layout<Shape<_16,_8,_1>>{}));
  return 0;
}
