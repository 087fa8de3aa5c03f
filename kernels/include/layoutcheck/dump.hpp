// layoutcheck/dump.hpp -- write CuTe C++ objects as a layoutcheck spec, so a CUTLASS user checks a kernel's layouts
// without writing one (host side, C++17, g++ or clang, the CUTLASS headers and the CUDA runtime headers on the
// include path; nothing is launched and no driver is called).
//
//   #include <layoutcheck/dump.hpp>
//   std::ofstream f("kernel.toml");
//   layoutcheck::header(f, "my GEMM");                 // format = 1
//   layoutcheck::dump<half_t>(f, "sA", sA_layout);     // a smem layout (swizzled or not)
//   layoutcheck::dump(f, "mma", tiled_mma);            // a TiledMMA
//   layoutcheck::dump(f, "g2s", tiled_copy);           // a TiledCopy
//   layoutcheck::dump(f, "tma_a", tma, gA, sA_layout); // a TMA copy from make_tma_copy, its gmem tensor, its smem
//   // then: layoutcheck check kernel.toml
//
// `dump(path, name, x...)` writes a whole file (the header and x); `dump(FILE*, ...)` and `dump(std::ostream&, ...)`
// append the fragment. Every object becomes one or more `[[config]]` tables named `NAME.PART` (NAME sanitised to
// the config-name rules: ASCII letters, digits and `_ . + -`, anything else `_`, at most 80 characters):
//
//   Layout                 kind `layout`, `injective` (offsets of every coordinate distinct).
//   ComposedLayout         `Sw<B,M,S> o off o L` as CuTe composes it (element units) -> kind `layout`. A swizzle
//                          composed through `smem_ptr_flag_bits<b>` (GMMA's `Layout_*_SW*_Atom<T>` and their
//                          `tile_to_shape`) acts on the *byte address* of b-bit elements; it is written in element
//                          units, `Sw<B, M - log2(b/8), S>`, which is the same map for a buffer aligned to
//                          2^(B+M+S) bytes (1024 B for 128B swizzles, as CUTLASS aligns its smem). With
//                          `dump<T>`, kind `smem` and `dtype` from T (its width must be b).
//   TiledMMA               `NAME.C`, `NAME.A`, `NAME.B`: CuTe's `get_layoutC_TV()` / `A` / `B` on the
//                          `tile_size_mnk` tile, kind `tv`, `exact_cover` (with the replication
//                          `size(TV) / tile` where it is above 1: the threads an operand does not span hold
//                          copies of it, and under ThrK > 1 several threads hold partial sums of one C element);
//                          `NAME.model_C` ... : kind `tiled_mma` (the atom's name, atom layout, permutation) with
//                          `equivalent` to CuTe's TV layout, so layoutcheck's own model of the TiledMMA is checked
//                          against CuTe's, point by point. An atom layoutcheck does not know is an ERROR on `atom`.
//   TiledCopy              `NAME.S`, `NAME.D`: `get_layoutS_TV()` / `get_layoutD_TV()` on the `Tiler_MN` tile,
//                          kind `tv`, `exact_cover` (replication `size(TV) / tile` when it is above 1).
//   TMA (make_tma_copy)    `dump(out, name, tma, gtensor, slayout)`: kind `tma`, `tma_compatible`. The arguments of
//                          `cuTensorMapEncodeTiled` are computed the way `make_tma_copy_desc` computes them, from
//                          the copy's own type (`TmaGmemBasis`: box dims and which gmem mode each walks,
//                          `TmaSwizzle`, the value type) and the gmem tensor (`fill_tma_gmem_shape_stride`, byte
//                          strides); the box is truncated by the multicast count (the TiledCopy's thread count) as
//                          CuTe truncates it. A host build without nvcc never encodes the descriptor (CuTe skips
//                          the driver call), so its bytes are not read. `slayout` is the smem layout the kernel
//                          reads the box through (each TMA dim walks one of its modes); `tma_compatible` checks the
//                          descriptor is legal and every element lands where `slayout` expects it. The CTA
//                          tile's mode i is taken to be the gmem tensor's mode i (make_tma_copy with a shape as
//                          its CTA tiler, as CUTLASS's collectives call it).
//
// What the header cannot write faithfully (a stride that is not an integer, a composition of two layouts, a
// non-power-of-two element width, a TMA dim that merges gmem modes, ...) is written as a config whose `layout` text
// says what, so `layoutcheck check` reports an ERROR row naming it: nothing is dropped. Each object's tables are
// preceded by comments naming it (its C++ type or CuTe notation, ThrLayoutVMNK, Tiler_MN, TmaGmemBasis, ...).
#pragma once

#include <cstdio>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/copy_atom.hpp>
#if __has_include(<cuda.h>) && __has_include(<cute/atom/copy_traits_sm90_tma.hpp>)  // CuTe's TMA needs the driver API
#include <cute/atom/copy_traits_sm90_tma.hpp>
#define LAYOUTCHECK_DUMP_TMA 1
#endif

namespace layoutcheck {
namespace detail {

// -- text ------------------------------------------------------------------------------------------------------------

// A value written as spec text, or the reason it cannot be (`bad` non-empty).
struct Text {
  std::string s;
  std::string bad;
};

inline void fail(Text& t, std::string const& why) {
  if (t.bad.empty()) t.bad = why;
}

template <class T>
std::string type_name() {  // the compiler's spelling of T (g++ and clang), e.g. cute::SM80_16x8x16_F32F16F16F32_TN
#if defined(__GNUC__) || defined(__clang__)
  std::string f = __PRETTY_FUNCTION__;
  std::size_t a = f.find("T = ");
  if (a == std::string::npos) return "?";
  a += 4;
  int depth = 0;
  for (std::size_t i = a; i < f.size(); ++i) {
    char c = f[i];
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')') --depth;
    if ((c == ';' && depth == 0) || (c == ']' && depth-- == 0)) return f.substr(a, i - a);
  }
  return f.substr(a);
#else
  return "?";
#endif
}

template <class T>
void int_tuple(Text& t, T const& x) {
  if constexpr (cute::is_tuple<T>::value) {
    t.s += '(';
    bool first = true;
    cute::for_each(x, [&](auto const& e) {
      if (!first) t.s += ',';
      first = false;
      int_tuple(t, e);
    });
    t.s += ')';
  } else if constexpr (std::is_convertible_v<T const&, long long>) {  // int, Int<N> (not a ScaledBasis)
    t.s += std::to_string(static_cast<long long>(x));
  } else {
    t.s += '?';
    fail(t, "an entry that is not an integer (a ScaledBasis stride of an identity layout or a coordinate tensor)");
  }
}

template <class Shape, class Stride>
Text layout_text(cute::Layout<Shape, Stride> const& l) {
  Text t;
  int_tuple(t, l.shape());
  t.s += ':';
  int_tuple(t, l.stride());
  return t;
}

template <class X>
Text layout_text(X const&) {  // anything but a plain Layout where one is needed (a nested ComposedLayout, ...)
  Text t{"?", ""};
  fail(t, "a layout of type " + type_name<X>() + " where a plain Layout is needed");
  return t;
}

inline std::string toml_string(std::string const& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// NAME as a config name: ASCII letters, digits and `_ . + -` kept, anything else `_`, at most 80 characters (the
// rules allow 100; the part suffix takes the rest).
inline std::string config_name(char const* name, char const* part) {
  std::string out;
  for (char const* p = name ? name : ""; *p && out.size() < 80; ++p) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
              c == '+' || c == '-';
    out += ok ? c : '_';
  }
  if (out.empty()) out = "cute";
  if (part && *part) out += std::string(".") + part;
  return out;
}

inline void comment(std::ostream& os, std::string const& label, std::string const& text) {
  std::istringstream in(text);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    os << "# " << (first ? label : std::string(label.size(), ' ')) << line << "\n";
    first = false;
  }
}

// One `[[config]]` table: keys are (key, TOML value text) pairs, written in order.
struct Config {
  std::string name, kind, description;
  std::vector<std::pair<std::string, std::string>> keys;
  std::string properties;  // the TOML array's inside
};

inline void write(std::ostream& os, Config const& c) {
  os << "[[config]]\nname = " << toml_string(c.name) << "\nkind = " << toml_string(c.kind) << "\n";
  if (!c.description.empty()) os << "description = " << toml_string(c.description) << "\n";
  for (auto const& kv : c.keys) os << kv.first << " = " << kv.second << "\n";
  os << "properties = [" << c.properties << "]\n\n";
}

// A config `check` turns into an ERROR row naming what this header could not write.
inline void write_unexpressible(std::ostream& os, std::string const& name, std::string const& what) {
  Config c{name, "layout", "not written by layoutcheck/dump.hpp: " + what, {}, "\"injective\""};
  c.keys.push_back({"layout", toml_string("dump.hpp cannot express this object: " + what)});
  write(os, c);
}

template <class... Ints>
std::string int_list(Ints... v) {
  std::string s = "[";
  bool first = true;
  for (long long x : {static_cast<long long>(v)...}) {
    if (!first) s += ", ";
    first = false;
    s += std::to_string(x);
  }
  return s + "]";
}

// -- element types ---------------------------------------------------------------------------------------------------

template <class T>
std::string dtype_name() {  // the spec's dtype name of T, "" when it has none
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, cute::half_t>) return "f16";
  else if constexpr (std::is_same_v<U, cute::bfloat16_t>) return "bf16";
  else if constexpr (std::is_same_v<U, cute::tfloat32_t>) return "tf32";
  else if constexpr (std::is_same_v<U, float>) return "f32";
  else if constexpr (std::is_same_v<U, double>) return "f64";
  else if constexpr (std::is_same_v<U, cute::float_e4m3_t>) return "e4m3";
  else if constexpr (std::is_same_v<U, cute::float_e5m2_t>) return "e5m2";
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) <= 8) {
    return "s" + std::to_string(8 * sizeof(U));
  } else if constexpr (std::is_integral_v<U> && sizeof(U) <= 8) {
    return "u" + std::to_string(8 * sizeof(U));
  } else if constexpr (cute::sizeof_bits_v<U> == 8 || cute::sizeof_bits_v<U> == 16 || cute::sizeof_bits_v<U> == 32 ||
                       cute::sizeof_bits_v<U> == 64) {
    return "b" + std::to_string(cute::sizeof_bits_v<U>);
  } else {
    return "";
  }
}

constexpr int log2_exact(int v) {  // log2 of a power of two, -1 otherwise
  int k = 0;
  while (v > 1 && v % 2 == 0) v /= 2, ++k;
  return v == 1 ? k : -1;
}

// -- smem layouts ----------------------------------------------------------------------------------------------------

template <class X>
struct is_swizzle_fn : std::false_type {};
template <int B, int M, int S>
struct is_swizzle_fn<cute::Swizzle<B, M, S>> : std::true_type {};

template <class X>
struct is_plain_layout : std::false_type {};
template <class Shape, class Stride>
struct is_plain_layout<cute::Layout<Shape, Stride>> : std::true_type {};

template <class X>
struct is_smem_flag : std::false_type {};
template <int B>
struct is_smem_flag<cute::smem_ptr_flag_bits<B>> : std::true_type {
  static constexpr int bits = B;
};

// The element-unit text of a layout (`Sw<B,M,S> o off o L` or `L`) and the element width in bits its swizzle was
// built for (0: not known, a plain layout or an element-unit swizzle).
struct Smem {
  Text text;
  int bits = 0;
};

template <class Shape, class Stride>
Smem smem_text(cute::Layout<Shape, Stride> const& l) {
  return {layout_text(l), 0};
}

template <class A, class O, class L>
Smem smem_text(cute::ComposedLayout<A, O, L> const& c) {
  Smem out;
  if constexpr (!is_swizzle_fn<A>::value) {
    out.text.s = "?";
    fail(out.text, "a ComposedLayout whose outer function is not a Swizzle (" + type_name<A>() +
                       "): CuTe's composition of two layouts that it could not simplify");
    return out;
  } else {
    constexpr int B = A::num_bits, M = A::num_base, S = A::num_shft;
    Text inner = layout_text(c.layout_b());
    if constexpr (is_smem_flag<O>::value) {  // a swizzle of byte addresses of `bits`-bit elements
      constexpr int bits = is_smem_flag<O>::bits;
      constexpr int k = log2_exact(bits);
      out.bits = bits;
      if constexpr (k < 0 || M - (k - 3) < 0) {
        out.text.s = "?";
        fail(out.text, "a byte-address swizzle Sw<" + std::to_string(B) + "," + std::to_string(M) + "," +
                           std::to_string(S) + "> over " + std::to_string(bits) +
                           "-bit elements has no element-unit form");
        return out;
      } else {
        out.text.s = "Sw<" + std::to_string(B) + "," + std::to_string(M - (k - 3)) + "," + std::to_string(S) +
                     "> o 0 o " + inner.s;
      }
    } else if constexpr (std::is_convertible_v<O const&, long long>) {
      out.text.s = "Sw<" + std::to_string(B) + "," + std::to_string(M) + "," + std::to_string(S) + "> o " +
                   std::to_string(static_cast<long long>(c.offset())) + " o " + inner.s;
    } else {
      out.text.s = "?";
      fail(out.text, "a ComposedLayout offset that is not an integer (" + type_name<O>() + ")");
    }
    out.text.bad = inner.bad.empty() ? out.text.bad : inner.bad;
    return out;
  }
}

// A comment's text for x: CuTe notation for layouts (element units), else the type's name.
template <class X>
std::string describe(X const& x) {
  if constexpr (is_plain_layout<X>::value || cute::is_composed_layout<X>::value) {
    Smem m = smem_text(x);
    return m.text.bad.empty() ? m.text.s : type_name<X>();
  } else {
    return type_name<X>();
  }
}

template <class T, class X>
void emit_layout(std::ostream& os, std::string const& base, X const& x) {
  Smem m = smem_text(x);
  comment(os, base + ": ", describe(x));
  if (!m.text.bad.empty()) return write_unexpressible(os, base, m.text.bad);
  Config c{base, "layout", "", {}, "\"injective\""};
  std::string swz = m.bits ? " (a byte-address swizzle of " + std::to_string(m.bits) +
                                 "-bit elements, written in element units: exact for a buffer aligned to its pattern)"
                           : "";
  if constexpr (!std::is_void_v<T>) {
    std::string dt = dtype_name<T>();
    if (dt.empty()) return write_unexpressible(os, base, "element type " + type_name<T>() + " has no spec dtype");
    if (m.bits && m.bits != static_cast<int>(cute::sizeof_bits_v<T>)) {
      return write_unexpressible(os, base, "the layout's swizzle is built for " + std::to_string(m.bits) +
                                               "-bit elements, the element type " + type_name<T>() + " has " +
                                               std::to_string(cute::sizeof_bits_v<T>));
    }
    c.kind = "smem";
    c.keys.push_back({"dtype", toml_string(dt)});
  }
  c.description = "CuTe layout: coordinate -> element offset" + swz;
  c.keys.push_back({"layout", toml_string(m.text.s)});
  write(os, c);
}

// -- TV layouts ------------------------------------------------------------------------------------------------------

// A `tv` config of `tv` on a tile of `extents`, `exact_cover` with the replication size(tv) / size(tile).
template <class TV>
void emit_tv(std::ostream& os, std::string const& name, std::string const& what, TV const& tv,
             std::vector<long long> const& extents) {
  Text t = layout_text(tv);
  if (!t.bad.empty()) return write_unexpressible(os, name, what + ": " + t.bad);
  if (extents.empty() || extents.size() > 2) {
    return write_unexpressible(os, name, what + ": a tile of rank " + std::to_string(extents.size()) +
                                             " (kind tv takes [M] or [M, N])");
  }
  long long tile = 1;
  std::string ext = "[";
  for (std::size_t i = 0; i < extents.size(); ++i) {
    tile *= extents[i];
    ext += (i ? ", " : "") + std::to_string(extents[i]);
  }
  ext += "]";
  long long n = static_cast<long long>(cute::size(tv));
  Config c{name, "tv", what + " (CuTe: (thread, value) -> m + M*n)", {{"tv", toml_string(t.s)}, {"tile", ext}}, ""};
  if (tile > 0 && n % tile == 0 && n / tile > 1) {
    c.description += "; every element held by " + std::to_string(n / tile) + " threads";
    c.properties = "{ name = \"exact_cover\", replication = " + std::to_string(n / tile) + " }";
  } else {
    c.properties = "\"exact_cover\"";
  }
  write(os, c);
}

// -- TiledMMA --------------------------------------------------------------------------------------------------------

// CUTLASS's MMA operation type -> the atom name layoutcheck's `tiled_mma` kind uses (namespaces and template
// arguments dropped; `SM90::GMMA::MMA_64x128x16_...` is `SM90_64x128x16_...`).
inline std::string atom_name(std::string t) {
  std::size_t lt = t.find('<');
  if (lt != std::string::npos) t = t.substr(0, lt);
  std::string const gmma = "SM90::GMMA::MMA_";
  std::size_t g = t.find(gmma);
  if (g != std::string::npos) return "SM90_" + t.substr(g + gmma.size());
  std::size_t colon = t.rfind("::");
  return colon == std::string::npos ? t : t.substr(colon + 2);
}

template <class P>
Text permutation_entry(P const& p) {
  Text t;
  if constexpr (std::is_same_v<P, cute::Underscore>) {
    t.s = "\"_\"";
  } else if constexpr (std::is_convertible_v<P const&, long long>) {
    t.s = std::to_string(static_cast<long long>(p));
  } else if constexpr (is_plain_layout<P>::value) {
    Text l = layout_text(p);
    t.s = toml_string(l.s);
    t.bad = l.bad;
  } else {
    t.s = "?";
    fail(t, "a permutation mode " + type_name<P>() + " (kind tiled_mma takes an int, a layout or _ per mode)");
  }
  return t;
}

template <class Atom, class AtomLayout, class Perm>
Text tiled_mma_model_keys(cute::TiledMMA<Atom, AtomLayout, Perm> const& mma,
                          std::vector<std::pair<std::string, std::string>>& keys) {
  using MMA = cute::TiledMMA<Atom, AtomLayout, Perm>;
  Text why;
  keys.push_back({"atom", toml_string(atom_name(type_name<typename MMA::Atom::MMA_Op>()))});
  auto atoms = AtomLayout{};
  auto shape = cute::shape(atoms);
  // the kind's atom_layout [M, N, K] is the column-major Layout((M,N,K)): a flat shape whose function is the identity
  bool col_major = std::is_same_v<decltype(cute::flatten(shape)), std::remove_cv_t<decltype(shape)>>;
  for (int i = 0; col_major && i < static_cast<int>(cute::size(atoms)); ++i) col_major = atoms(i) == i;
  if (!col_major) {
    fail(why, "atom layout " + layout_text(atoms).s +
                  " is not a column-major [M, N, K] of atoms (kind tiled_mma's atom_layout takes sizes only)");
  }
  keys.push_back({"atom_layout", int_list(cute::size<0>(atoms), cute::size<1>(atoms), cute::size<2>(atoms))});
  std::string perm = "[";
  cute::for_each(cute::make_seq<3>{}, [&](auto i) {
    Text e = permutation_entry(cute::get<decltype(i)::value>(Perm{}));
    if (!e.bad.empty()) fail(why, e.bad);
    perm += (decltype(i)::value ? ", " : "") + e.s;
  });
  keys.push_back({"permutation", perm + "]"});
  keys.push_back({"tile", int_list(cute::tile_size<0>(mma), cute::tile_size<1>(mma), cute::tile_size<2>(mma))});
  return why;
}

template <class Atom, class AtomLayout, class Perm>
void emit_tiled_mma(std::ostream& os, std::string const& base, cute::TiledMMA<Atom, AtomLayout, Perm> const& mma) {
  using MMA = cute::TiledMMA<Atom, AtomLayout, Perm>;
  long long M = cute::tile_size<0>(mma), N = cute::tile_size<1>(mma), K = cute::tile_size<2>(mma);
  comment(os, base + ": ", "TiledMMA " + type_name<typename MMA::Atom::MMA_Op>());
  comment(os, "  ThrLayoutVMNK:  ", describe(mma.get_thr_layout_vmnk()));
  comment(os, "  PermutationMNK: ", describe(Perm{}));
  comment(os, "  tile_size_mnk:  ", std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K));
  auto tvC = mma.get_layoutC_TV();
  auto tvA = mma.get_layoutA_TV();
  auto tvB = mma.get_layoutB_TV();
  emit_tv(os, base + ".C", "TiledMMA C: get_layoutC_TV() on the M x N tile", tvC, {M, N});
  emit_tv(os, base + ".A", "TiledMMA A: get_layoutA_TV() on the M x K tile", tvA, {M, K});
  emit_tv(os, base + ".B", "TiledMMA B: get_layoutB_TV() on the N x K tile", tvB, {N, K});
  std::vector<std::pair<std::string, std::string>> keys;
  Text why = tiled_mma_model_keys(mma, keys);
  char const* ops[] = {"C", "A", "B"};
  Text tvs[] = {layout_text(tvC), layout_text(tvA), layout_text(tvB)};
  for (int i = 0; i < 3; ++i) {
    std::string name = base + ".model_" + ops[i];
    if (!why.bad.empty()) {
      write_unexpressible(os, name, "layoutcheck's tiled_mma model of this TiledMMA: " + why.bad);
      continue;
    }
    if (!tvs[i].bad.empty()) continue;  // its tv config above already reports it
    Config c{name, "tiled_mma",
             std::string("layoutcheck's model of the TiledMMA, operand ") + ops[i] + ", equals CuTe's TV layout",
             keys, "{ name = \"equivalent\", other = " + toml_string(tvs[i].s) + " }"};
    c.keys.push_back({"operand", toml_string(ops[i])});
    write(os, c);
  }
}

// -- TiledCopy -------------------------------------------------------------------------------------------------------

template <class Tiler>
std::vector<long long> tiler_extents(Tiler const& t) {
  std::vector<long long> out;
  cute::for_each(cute::make_seq<cute::rank_v<Tiler>>{},
                 [&](auto i) { out.push_back(static_cast<long long>(cute::size(cute::get<decltype(i)::value>(t)))); });
  return out;
}

template <class Atom, class TV, class Tiler>
void emit_tiled_copy(std::ostream& os, std::string const& base, cute::TiledCopy<Atom, TV, Tiler> const& copy) {
  comment(os, base + ": ", "TiledCopy " + type_name<Atom>());
  comment(os, "  Tiler_MN:       ", describe(Tiler{}));
  comment(os, "  TiledLayout_TV: ", describe(TV{}));
  std::vector<long long> ext = tiler_extents(Tiler{});
  emit_tv(os, base + ".S", "TiledCopy source: get_layoutS_TV() on the Tiler_MN tile", copy.get_layoutS_TV(), ext);
  emit_tv(os, base + ".D", "TiledCopy destination: get_layoutD_TV() on the Tiler_MN tile", copy.get_layoutD_TV(),
          ext);
}

// -- TMA -------------------------------------------------------------------------------------------------------------
#ifdef LAYOUTCHECK_DUMP_TMA

template <class X>
struct tma_traits_of : std::false_type {};
template <class Op, class NumBits, class Aux, class T>
struct tma_traits_of<cute::Copy_Atom<cute::Copy_Traits<Op, NumBits, Aux>, T>> {
  static constexpr bool value = cute::is_tuple<decltype(cute::stride(typename Aux::TmaGmemBasis{}))>::value;
  using Traits = cute::Copy_Traits<Op, NumBits, Aux>;
  using NumBits_ = NumBits;
  using Basis = std::remove_cv_t<std::remove_reference_t<typename Aux::TmaGmemBasis>>;
  using Swizzle = std::remove_cv_t<std::remove_reference_t<typename Aux::TmaSwizzle>>;
  using Value = T;
};

// gmem mode of a TMA dim's basis stride: j for a single E<j>, -1 for anything else (merged modes, scaled).
template <class D>
struct unit_basis {
  static constexpr int mode = -1;
};
template <int J>
struct unit_basis<cute::ScaledBasis<cute::C<1>, J>> {
  static constexpr int mode = J;
};
template <class D>
struct unit_basis<cute::tuple<D>> : unit_basis<D> {};

template <class Atom, class GTensor, class SLayout>
void emit_tma(std::ostream& os, std::string const& base, Atom const& /* its type holds the TMA */, unsigned multicast,
              GTensor const& gtensor, SLayout const& slayout) {
  using TT = tma_traits_of<Atom>;
  using T = typename TT::Value;
  using Basis = typename TT::Basis;
  using Swz = typename TT::Swizzle;
  comment(os, base + ": ", "TMA " + type_name<typename TT::Traits>());
  comment(os, "  TmaGmemBasis: ", describe(Basis{}));
  comment(os, "  gmem tensor:  ", describe(gtensor.layout()));
  comment(os, "  smem layout:  ", describe(slayout));
  std::string dt = dtype_name<T>();
  if (dt.empty()) return write_unexpressible(os, base, "TMA element type " + type_name<T>() + " has no spec dtype");
  constexpr long long internal_bits = cute::size(typename TT::NumBits_{}) / cute::size(Basis{});
  if (internal_bits != static_cast<long long>(cute::sizeof_bits_v<T>)) {
    return write_unexpressible(os, base, "a TMA whose TmaInternalType (" + std::to_string(internal_bits) +
                                             " bits) is not the tensor's value type " + type_name<T>());
  }
  constexpr int rank = cute::rank_v<Basis>;
  // box dims: the TmaGmemBasis mode sizes, the last ones truncated by the multicast count (make_tma_copy_desc)
  std::vector<long long> box;
  std::vector<int> gmode;
  cute::for_each(cute::make_seq<rank>{}, [&](auto i) {
    box.push_back(static_cast<long long>(cute::size<decltype(i)::value>(Basis{})));
    gmode.push_back(unit_basis<std::remove_cv_t<decltype(cute::stride<decltype(i)::value>(Basis{}))>>::mode);
  });
  for (int i = rank - 1, m = static_cast<int>(multicast); m > 1 && i >= 0; --i) {
    int new_m = static_cast<int>((m + box[i] - 1) / box[i]);
    box[i] = (box[i] + m - 1) / m;
    m = new_m;
  }
  // gmem dims and byte strides, as make_tma_copy_desc computes them
  cute::array<uint64_t, 5> gshape = {1, 1, 1, 1, 1};
  cute::array<uint64_t, 5> gstride = {0, 0, 0, 0, 0};
  cute::detail::fill_tma_gmem_shape_stride(typename TT::Traits{}, cute::recast<T>(gtensor), gshape, gstride);
  // the swizzle mode
  constexpr int B = Swz::num_bits, M = Swz::num_base, S = Swz::num_shft;
  if (!(M == 4 && S == 3 && B >= 0 && B <= 3)) {
    return write_unexpressible(os, base, "TMA swizzle Sw<" + std::to_string(B) + "," + std::to_string(M) + "," +
                                             std::to_string(S) + "> (a swizzle base other than 16 B)");
  }
  char const* modes_name[] = {"none", "32B", "64B", "128B"};
  // each smem layout mode is walked by the TMA dim whose basis is that gmem mode; size-1 dims get a 1:0 mode
  Smem sm = smem_text(slayout);
  if (!sm.text.bad.empty()) return write_unexpressible(os, base, "the TMA's smem layout: " + sm.text.bad);
  if (sm.bits && sm.bits != static_cast<int>(cute::sizeof_bits_v<T>)) {
    return write_unexpressible(os, base, "the smem layout's swizzle is built for " + std::to_string(sm.bits) +
                                             "-bit elements, the TMA moves " + type_name<T>());
  }
  constexpr int srank = cute::rank_v<decltype(cute::get_nonswizzle_portion(slayout))>;
  std::vector<int> modes(srank, -1);
  std::vector<bool> used(rank, false);
  for (int d = 0; d < rank; ++d) {
    if (gmode[d] >= 0 && gmode[d] < srank && modes[gmode[d]] < 0) {
      modes[gmode[d]] = d;
      used[d] = true;
    } else if (box[d] != 1) {
      return write_unexpressible(os, base, "TMA dim " + std::to_string(d) + " (" + std::to_string(box[d]) +
                                               " elements) walks no single mode of the smem layout (CuTe merged "
                                               "gmem modes into it, or its basis is scaled)");
    }
  }
  for (int m = 0; m < srank; ++m) {
    if (modes[m] < 0) {
      return write_unexpressible(os, base, "smem layout mode " + std::to_string(m) + " is walked by no TMA dim");
    }
  }
  auto inner_layout = cute::get_nonswizzle_portion(slayout);
  std::string lay = sm.text.s;
  std::string head = lay.substr(0, lay.size() - layout_text(inner_layout).s.size());
  Text sh, st;
  int_tuple(sh, inner_layout.shape());
  int_tuple(st, inner_layout.stride());
  std::string shape = srank == 1 ? "(" + sh.s : sh.s.substr(0, sh.s.size() - 1);
  std::string stride = srank == 1 ? "(" + st.s : st.s.substr(0, st.s.size() - 1);
  std::string mode_list = "[";
  for (int m = 0; m < srank; ++m) mode_list += (m ? ", " : "") + std::to_string(modes[m]);
  for (int d = 0; d < rank; ++d) {
    if (!used[d]) {
      shape += ",1";
      stride += ",0";
      mode_list += ", " + std::to_string(d);
    }
  }
  std::string full = head + shape + "):" + stride + ")";
  std::string boxs = "[", gsh = "[", gst = "[";
  for (int d = 0; d < rank; ++d) {
    boxs += (d ? ", " : "") + std::to_string(box[d]);
    gsh += (d ? ", " : "") + std::to_string(gshape[d]);
    if (d) gst += (d > 1 ? ", " : "") + std::to_string(gstride[d] * cute::sizeof_bits_v<T> / 8);
  }
  Config c{base, "tma",
           "CuTe TMA (make_tma_copy): the cuTensorMapEncodeTiled arguments CuTe computes, the smem layout the "
           "kernel reads",
           {{"dtype", toml_string(dt)},
            {"box", boxs + "]"},
            {"swizzle", toml_string(modes_name[B])},
            {"global_shape", gsh + "]"}},
           "\"tma_compatible\""};
  if (rank > 1) c.keys.push_back({"global_strides", gst + "]"});
  c.keys.push_back({"smem_layout", toml_string(full)});
  c.keys.push_back({"modes", mode_list + "]"});
  write(os, c);
}
#endif

// -- dispatch --------------------------------------------------------------------------------------------------------

template <class... Args>
void emit_object(std::ostream& os, std::string const& base, cute::TiledMMA<Args...> const& x) {
  emit_tiled_mma(os, base, x);
}

template <class Atom, class TV, class Tiler>
void emit_object(std::ostream& os, std::string const& base, cute::TiledCopy<Atom, TV, Tiler> const& x) {
#ifdef LAYOUTCHECK_DUMP_TMA
  if constexpr (tma_traits_of<Atom>::value) {
    return write_unexpressible(os, base, "a TMA TiledCopy on its own: pass its gmem tensor and smem layout too, "
                                         "dump(out, name, tma, gtensor, slayout)");
  }
#endif
  emit_tiled_copy(os, base, x);
}

// Anything else: no overload of emit_object, a compile error naming X.
template <class T, class X>
void emit(std::ostream& os, std::string const& base, X const& x) {
  if constexpr (cute::is_layout<X>::value || cute::is_composed_layout<X>::value) {
    emit_layout<T>(os, base, x);
  } else {
    emit_object(os, base, x);
  }
}

}  // namespace detail

// `format = 1` (and a description): the head of a spec file, once before the fragments.
inline void header(std::ostream& os, char const* description = nullptr) {
  os << "# written by layoutcheck/dump.hpp; check with: layoutcheck check FILE\nformat = 1\n";
  if (description) os << "description = " << detail::toml_string(description) << "\n";
  os << "\n";
}

// Append the configs of `x` (a Layout, ComposedLayout, TiledMMA or TiledCopy) named NAME.*; with T, a smem layout
// is written as kind `smem` with T's dtype.
template <class T = void, class X>
void dump(std::ostream& os, char const* name, X const& x) {
  detail::emit<T>(os, detail::config_name(name, ""), x);
}

#ifdef LAYOUTCHECK_DUMP_TMA
// A TMA copy from make_tma_copy (a TiledCopy, whose thread count is the multicast count), the gmem tensor it was
// made from and the smem layout the kernel reads its box through.
template <class Atom, class TV, class Tiler, class GEngine, class GLayout, class SLayout>
void dump(std::ostream& os, char const* name, cute::TiledCopy<Atom, TV, Tiler> const& tma,
          cute::Tensor<GEngine, GLayout> const& gtensor, SLayout const& slayout) {
  std::string base = detail::config_name(name, "");
  if constexpr (detail::tma_traits_of<Atom>::value) {
    detail::emit_tma(os, base, static_cast<Atom const&>(tma), static_cast<unsigned>(cute::size<0>(TV{})), gtensor,
                     slayout);
  } else {
    detail::write_unexpressible(os, base, "a TiledCopy that is not a TMA copy, given a gmem tensor");
  }
}

// A TMA Copy_Atom (make_tma_atom) with its multicast count.
template <class Traits, class T, class GEngine, class GLayout, class SLayout>
void dump(std::ostream& os, char const* name, cute::Copy_Atom<Traits, T> const& atom, unsigned multicast,
          cute::Tensor<GEngine, GLayout> const& gtensor, SLayout const& slayout) {
  std::string base = detail::config_name(name, "");
  if constexpr (detail::tma_traits_of<cute::Copy_Atom<Traits, T>>::value) {
    detail::emit_tma(os, base, atom, multicast, gtensor, slayout);
  } else {
    detail::write_unexpressible(os, base, "a Copy_Atom that is not a TMA atom, given a gmem tensor");
  }
}
#endif

// The same, appended to an open FILE; false when it cannot be written.
template <class T = void, class... X>
bool dump(std::FILE* f, char const* name, X const&... x) {
  std::ostringstream os;
  if constexpr (sizeof...(X) == 1) dump<T>(os, name, x...);
  else dump(os, name, x...);
  std::string s = os.str();
  return std::fwrite(s.data(), 1, s.size(), f) == s.size() && std::fflush(f) == 0;
}

// A whole spec file at `path` (the header and the configs of x); false when it cannot be written.
template <class T = void, class... X>
bool dump(char const* path, char const* name, X const&... x) {
  std::ofstream f(path);
  if (!f) return false;
  header(f);
  if constexpr (sizeof...(X) == 1) dump<T>(f, name, x...);
  else dump(f, name, x...);
  f.close();
  return !f.fail();
}

}  // namespace layoutcheck
