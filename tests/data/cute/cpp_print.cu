#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/mma_traits_sm80.hpp>
using namespace cute;
int main() {
  auto a = make_layout(make_shape(Int<8>{}, make_shape(Int<4>{}, Int<2>{})), make_stride(Int<2>{}, make_stride(Int<16>{}, Int<1>{})));
  print(a); printf("\n@@\n");
  auto s = composition(Swizzle<3,4,3>{}, make_layout(make_shape(Int<8>{}, Int<64>{}), make_stride(Int<64>{}, Int<1>{})));
  print(s); printf("\n@@\n");
  print_layout(make_layout(make_shape(Int<4>{}, Int<3>{}), make_stride(Int<3>{}, Int<1>{}))); printf("@@\n");
  auto mma = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{});
  print(mma); printf("@@\n");
  auto d = make_layout(make_shape(8, 4), make_stride(4, 1));
  print(d); printf("\n@@\n");
  return 0;
}
