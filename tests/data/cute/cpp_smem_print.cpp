// Swizzled shared-memory layouts as CuTe prints them, each block followed by CuTe's own element-unit form
// (as_position_independent_swizzle_layout), and tensors over real pointers. Host-only; no GPU:
//   g++ -x c++ -std=c++17 -I$CUTLASS/include -I/usr/local/cuda/include -I/usr/local/cuda/include/cccl \
//       cpp_smem_print.cpp -o p && ./p > cpp_smem_print.txt
// (CUTLASS headers of the nvidia-cutlass wheel, cutlass_library/source/include). Blocks end with @@; a block is
// "printout\nposition-independent form".
#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
using namespace cute;

template <class L>
void pair(L const& l) {
  print(l); printf("\n"); print(as_position_independent_swizzle_layout(l)); printf("\n@@\n");
}

template <class T>
void atoms() {
  pair(GMMA::Layout_K_SW32_Atom<T>{});
  pair(GMMA::Layout_K_SW64_Atom<T>{});
  pair(GMMA::Layout_K_SW128_Atom<T>{});
  pair(GMMA::Layout_MN_SW32_Atom<T>{});
  pair(GMMA::Layout_MN_SW64_Atom<T>{});
  pair(GMMA::Layout_MN_SW128_Atom<T>{});
  pair(tile_to_shape(GMMA::Layout_K_SW128_Atom<T>{}, make_shape(Int<64>{}, Int<128>{})));
  pair(tile_to_shape(GMMA::Layout_MN_SW128_Atom<T>{}, make_shape(Int<128>{}, Int<32>{}), Step<_2,_1>{}));
}

int main() {
  atoms<uint8_t>();
  atoms<half_t>();
  atoms<float>();
  atoms<double>();
  // sub-byte elements (CuTe downcasts the swizzle) and 16-byte elements; Sw<3,3,3> on 16-byte elements XORs byte
  // bit 6 into byte bit 3, inside an element: CuTe's upcast gives Sw<2,0,3> (that pair dropped), layoutcheck refuses
  pair(composition(Swizzle<3,4,3>{}, smem_ptr_flag_bits<4>{}, Layout<Shape<_8,_256>,Stride<_256,_1>>{}));
  pair(composition(Swizzle<3,4,3>{}, smem_ptr_flag_bits<128>{}, Layout<Shape<_8,_8>,Stride<_8,_1>>{}));
  pair(composition(Swizzle<3,3,3>{}, smem_ptr_flag_bits<128>{}, Layout<Shape<_8,_8>,Stride<_8,_1>>{}));
  // tensors: a swizzle pointer at an aligned and at an offset address, a plain smem pointer over CuTe's element form
  alignas(1024) static half_t buf[64 * 64 + 64];
  auto tile = tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(Int<64>{}, Int<64>{}));
  print(make_tensor(make_smem_ptr(buf), tile)); printf("\n@@\n");
  print(make_tensor(make_smem_ptr(buf + 32), tile)); printf("\n@@\n");
  print(make_tensor(make_smem_ptr(buf), as_position_independent_swizzle_layout(tile))); printf("\n@@\n");
  print(make_tensor(make_smem_ptr(buf), make_layout(make_shape(Int<8>{}, Int<8>{})))); printf("\n@@\n");
  print(make_tensor(make_gmem_ptr(buf), make_layout(make_shape(Int<8>{}, Int<8>{}), LayoutRight{}))); printf("\n@@\n");
  return 0;
}
