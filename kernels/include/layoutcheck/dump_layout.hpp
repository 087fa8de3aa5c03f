// layoutcheck/dump_layout.hpp -- write a CuTe layout to a file that `layoutcheck check` and `layoutcheck import`
// read (host side, C++17, the CUTLASS headers on the include path).
//
//   #include <layoutcheck/dump_layout.hpp>
//   auto smem = make_layout(make_shape(Int<8>{}, Int<64>{}), make_stride(Int<64>{}, Int<1>{}));
//   layoutcheck::dump_layout("smem_a.txt", smem);       // then: layoutcheck check smem_a.txt
//
// The file holds one line, the layout in CuTe notation `shape:stride` with every integer written out (static
// `Int<N>` and dynamic ints alike, as `print(layout)` would show them without the `_` of static ints), so
// `layoutcheck check FILE` proves it injective (its CuTe-printout road) and `layoutcheck import FILE` turns it into a
// spec to extend. cute::print writes only to stdout; this writes where it is told, and returns false (errno set)
// when the file cannot be written.
#pragma once

#include <cstdio>

#include <cute/layout.hpp>

namespace layoutcheck {

template <class T>
void write_int_tuple(std::FILE* f, T const& t) {
  if constexpr (cute::is_tuple<T>::value) {
    std::fputc('(', f);
    bool first = true;
    cute::for_each(t, [&](auto const& x) {
      if (!first) std::fputc(',', f);
      first = false;
      write_int_tuple(f, x);
    });
    std::fputc(')', f);
  } else {
    std::fprintf(f, "%lld", static_cast<long long>(t));
  }
}

// `shape:stride` of a CuTe layout, one line.
template <class Shape, class Stride>
void write_layout(std::FILE* f, cute::Layout<Shape, Stride> const& layout) {
  write_int_tuple(f, layout.shape());
  std::fputc(':', f);
  write_int_tuple(f, layout.stride());
  std::fputc('\n', f);
}

// Write `layout` to `path`; false when the file cannot be opened or written.
template <class Shape, class Stride>
bool dump_layout(char const* path, cute::Layout<Shape, Stride> const& layout) {
  std::FILE* f = std::fopen(path, "w");
  if (f == nullptr) return false;
  write_layout(f, layout);
  bool ok = std::ferror(f) == 0;
  return std::fclose(f) == 0 && ok;
}

}  // namespace layoutcheck
