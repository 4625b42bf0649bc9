#include "chem/cc/mo_integrals.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

#include "chem/cc/closed_shell.hpp"

namespace cyclocc::cc {

using tensor::Sym;

namespace {

constexpr Sym N = Sym::NS, A = Sym::AS;

// Antisymmetric pairs where both indices of a bra or ket pair share a space.
std::vector<Sym> pair_sym(const std::string& sp) {
  return {sp[0] == sp[1] ? A : N, N, sp[2] == sp[3] ? A : N, N};
}

// Adds alpha (x y|z w) to `block` (labels pqrs), where `term` names the
// labels of x y z w, e.g. "prqs" for (pr|qs) = <pq|rs>. Nothing unless the
// spins within each chemist pair agree.
void add_chemist(const ChemistBlock& chem, const std::string& spaces, const std::string& key,
                 const std::string& term, double alpha, Tensor& block) {
  auto at = [](const std::string& of, char label) { return of[std::string("pqrs").find(label)]; };
  if (at(key, term[0]) != at(key, term[1]) || at(key, term[2]) != at(key, term[3])) return;
  // The alpha pair first; inside a pair the occupied index first ((xy| = (yx|).
  std::string order = at(key, term[0]) <= at(key, term[2]) ? term : term.substr(2) + term.substr(0, 2);
  for (int pair : {0, 2})
    if (at(spaces, order[pair]) == 'v' && at(spaces, order[pair + 1]) == 'o') std::swap(order[pair], order[pair + 1]);
  std::string cspaces;
  for (char label : order) cspaces += at(spaces, label);
  const int s1 = at(key, order[0]) == 'a' ? 0 : 1, s2 = at(key, order[2]) == 'a' ? 0 : 1;
  tensor::sum(alpha, chem(s1, s2, cspaces), order, 1.0, block, "pqrs");
}

// One spin block of <pq||rs> = (pr|qs) - (ps|qr). Where the block is
// antisymmetric in a pair, the packed sum adds the exchange term itself
// (contract.hpp conventions, §8), and adds it twice when both pairs are.
void fill_block(const ChemistBlock& chem, const std::string& spaces, const std::string& key, Tensor& block) {
  const auto& sym = block.shape().sym;
  const int packed_pairs = (sym[0] == A) + (sym[2] == A);
  if (packed_pairs == 2) return add_chemist(chem, spaces, key, "prqs", 0.5, block);
  add_chemist(chem, spaces, key, "prqs", 1.0, block);
  if (packed_pairs == 0) add_chemist(chem, spaces, key, "psqr", -1.0, block);
}

// Every computed block of an antisymmetrized integral tensor; in a restricted
// calculation the derived blocks follow when the tensor is next read.
void fill_integrals(const ChemistBlock& chem, SpinTensor& t) {
  for (const auto& key : t.computed_keys()) fill_block(chem, t.spaces(), key, t.block(key));
  t.blocks_written();
}

void fill_fock(SpinTensor& f, const std::array<std::vector<double>, 2>& eps_occ,
               const std::array<std::vector<double>, 2>& eps_vir) {
  const char s0 = f.spaces()[0], s1 = f.spaces()[1];
  for (const auto& key : f.block_keys()) {
    if (s0 != s1) continue;  // canonical orbitals: f_ov = 0
    const auto& eps = (s0 == 'o' ? eps_occ : eps_vir)[key[0] == 'a' ? 0 : 1];
    f.block(key).transform([&](const int* x, double& v) { v = x[0] == x[1] ? eps[x[0]] : 0.0; });
  }
}

}  // namespace

MoIntegrals::MoIntegrals(tensor::Context& ctx, const SpinDims& d, bool with_vvvv, bool vvvv_along_ef)
    : dims(d),
      f_oo(ctx, d, "oo", {N, N}, "f_oo"),
      f_ov(ctx, d, "ov", {N, N}, "f_ov"),
      f_vv(ctx, d, "vv", {N, N}, "f_vv"),
      oooo(ctx, d, "oooo", pair_sym("oooo"), "<oo||oo>"),
      ooov(ctx, d, "ooov", pair_sym("ooov"), "<oo||ov>"),
      oovv(ctx, d, "oovv", pair_sym("oovv"), "<oo||vv>"),
      ovov(ctx, d, "ovov", pair_sym("ovov"), "<ov||ov>"),
      ovvv(ctx, d, "ovvv", pair_sym("ovvv"), "<ov||vv>") {
  if (with_vvvv && vvvv_along_ef) vvvv.emplace(ctx, d, "vvvv", pair_sym("vvvv"), "<vv||vv>", 3);
  else if (with_vvvv) vvvv.emplace(ctx, d, "vvvv", pair_sym("vvvv"), "<vv||vv>");
}

int vvvv_row_window(int v) { return std::max(1, v / 8); }

namespace {

// The closed-shell ladder's halves (<ab|ef> +- <ab|fe>) / 2 (MoIntegrals::
// vvvv_plus, vvvv_minus) with all ranks along the pair ef, from the chemist
// integrals <ab|ef> = (ae|bf) a window of rows a at a time: the window's
// (ae|bf) moves once, into <ab|ef> along ef; the halves' rows are its
// exchange parts under e <-> f (local sums), and add_rows puts them in place
// (a <= b, a < b).
std::array<Tensor, 2> ladder_halves(tensor::Context& ctx, int v, const ChemistRows& rows) {
  const auto along_ef = tensor::Mapping::along(ctx.nranks(), 2, 4);
  std::array<Tensor, 2> halves{Tensor(ctx, tensor::Shape({v, v, v, v}, {Sym::SY, N, Sym::SY, N}), along_ef, "<vv|vv>+"),
                               Tensor(ctx, tensor::Shape({v, v, v, v}, {A, N, A, N}), along_ef, "<vv|vv>-")};
  const int window = vvvv_row_window(v);
  for (int first = 0; first < v; first += window) {
    const int count = std::min(window, v - first);
    const tensor::Shape window_shape({count, v, v, v}, {N, N, N, N});
    Tensor u(ctx, window_shape, along_ef, "<vv|vv> rows");
    tensor::sum(1.0, rows(0, 0, first, count), "aebf", 0.0, u, "abef");
    const auto parts = closed_shell::exchange_parts(u, {N, N, Sym::SY, N}, "<vv|vv> rows", &along_ef);
    for (int k : {0, 1}) halves[k].add_rows(1.0, parts[k], first);
  }
  return halves;
}

// The <vv||vv> blocks (ranks along the pair ef, or f where e and f differ in
// spin) from the chemist integrals a window of rows a at a time: <ab||ef> =
// (ae|bf) - (af|be), a in the window, all b, is one sum of the window's
// (ae|bf) into the block's ef packing (an AS pair ef adds the exchange term
// itself; in an opposite-spin block it is zero), and add_rows puts the rows
// in place (a < b where ab is an AS pair).
void fill_vvvv_by_rows(const ChemistRows& rows, SpinTensor& vvvv) {
  for (const auto& key : vvvv.computed_keys()) {
    Tensor& block = vvvv.block(key);
    const auto& lens = block.shape().lens;
    const auto& sym = block.shape().sym;
    const int s1 = key[0] == 'a' ? 0 : 1, s2 = key[1] == 'a' ? 0 : 1;
    const int window = vvvv_row_window(lens[0]);
    for (int first = 0; first < lens[0]; first += window) {
      const int count = std::min(window, lens[0] - first);
      Tensor u(block.ctx(), tensor::Shape({count, lens[1], lens[2], lens[3]}, {N, N, sym[2], N}), block.mapping(),
               "<vv||vv> rows");
      tensor::sum(1.0, rows(s1, s2, first, count), "aebf", 0.0, u, "abef");
      block.add_rows(1.0, u, first);
    }
  }
  vvvv.blocks_written();
}

// <mn||ef> as the particle-hole pair matrix V[(em),(fn)], whole on every rank (collective).
tensor::PairMatrix oovv_pairs(const SpinTensor& oovv) {
  return tensor::PairMatrix({{1.0, &oovv, "mnef"}}, "em", "fn", tensor::PairMatrix::Placement::whole, "<oo||vv>");
}

}  // namespace

MoIntegrals build_mo_integrals(tensor::Context& ctx, const SpinDims& d,
                               const std::array<std::vector<double>, 2>& eps_occ,
                               const std::array<std::vector<double>, 2>& eps_vir, const ChemistBlock& chem,
                               VvvvNeeds needs, const ChemistRows& vvvv_rows) {
  // <vv||vv> for CCSDT, and for the open-shell CCSD ladder, which alone is
  // built in windows of rows.
  const bool ladder_only = !d.restricted && needs.ladder && !needs.blocks;
  MoIntegrals mo(ctx, d, needs.blocks || ladder_only, ladder_only);
  mo.eps_occ = eps_occ;
  mo.eps_vir = eps_vir;
  fill_fock(mo.f_oo, eps_occ, eps_vir);
  fill_fock(mo.f_vv, eps_occ, eps_vir);
  for (SpinTensor* t : {&mo.oooo, &mo.ooov, &mo.oovv, &mo.ovov, &mo.ovvv}) fill_integrals(chem, *t);
  // Rows of the chemist (vv|vv) blocks, from vvvv_rows or cut out of chem's.
  const ChemistRows rows = vvvv_rows ? vvvv_rows : [&](int s1, int s2, int first, int count) {
    const Tensor& whole = chem(s1, s2, "vvvv");
    auto lens = whole.shape().lens;
    lens[0] = count;
    return whole.slice({first, 0, 0, 0}, tensor::Shape(lens, {N, N, whole.shape().sym[2], N}));
  };
  if (mo.vvvv && ladder_only) fill_vvvv_by_rows(rows, *mo.vvvv);
  else if (mo.vvvv) fill_integrals(chem, *mo.vvvv);
  if (d.restricted && needs.ladder) {
    // <ab|ef> = (ae|bf), split into (<ab|ef> +- <ab|fe>) / 2 (<ba|fe> = <ab|ef>)
    // with all ranks along the pair ef, where the ladder, which splits ef
    // over the ranks, finds them.
    const int n = d.vir[0];
    const auto along_ef = tensor::Mapping::along(ctx.nranks(), 2, 4);
    auto halves = ladder_halves(ctx, n, rows);
    mo.vvvv_plus.emplace(std::move(halves[0]));
    mo.vvvv_minus.emplace(std::move(halves[1]));
    // <ma|ef> and <mn|ef> split the same way (for Z_maij and W_mnij), and
    // L = 2 <mn|ef> - <mn|fe> (the closed-shell F, T1, ring and energy terms).
    // <ma|ef>'s halves also lie along ef, so that Z+- split ef as the ladder
    // does and tau+- stay in place (P5a at 2 ranks: Z+ and Z- 0.82 and 0.53 ->
    // 0.47 ms per iteration each; with <ma|ef> along a, tau+- moved every time).
    const Tensor& ovvv = tensor::spatial_block(mo.ovvv);
    const Tensor& oovv = tensor::spatial_block(mo.oovv);
    auto ov = closed_shell::exchange_parts(ovvv, {N, N, Sym::SY, N}, "<ov|vv>", &along_ef);
    auto oo = closed_shell::exchange_parts(oovv, {Sym::SY, N, Sym::SY, N}, "<oo|vv>");
    mo.ovvv_plus.emplace(std::move(ov[0]));
    mo.ovvv_minus.emplace(std::move(ov[1]));
    mo.oovv_plus.emplace(std::move(oo[0]));
    mo.oovv_minus.emplace(std::move(oo[1]));
    mo.oovv_l.emplace(closed_shell::exchange_combination(oovv, "pqrs", "pqsr", "L" + oovv.name()));
    const auto& lens = oovv.shape().lens;
    mo.vvoo_l.emplace(ctx, tensor::Shape({lens[2], lens[3], lens[0], lens[1]}, {N, N, N, N}), "L_abij");
    tensor::sum(1.0, *mo.oovv_l, "ijab", 0.0, *mo.vvoo_l, "abij");
    for (auto* x : {&mo.vvvv_plus, &mo.vvvv_minus, &mo.ovvv_plus, &mo.ovvv_minus, &mo.oovv_plus, &mo.oovv_minus,
                    &mo.oovv_l, &mo.vvoo_l})
      (*x)->set_constant(true);
  }
  if (!d.restricted && needs.ladder) mo.oovv_pairs.emplace(oovv_pairs(mo.oovv));
  // Fixed from here on: contractions keep their prepared copies.
  for (SpinTensor* t : {&mo.f_oo, &mo.f_ov, &mo.f_vv, &mo.oooo, &mo.ooov, &mo.oovv, &mo.ovov, &mo.ovvv})
    t->set_constant(true);
  if (mo.vvvv) mo.vvvv->set_constant(true);
  return mo;
}

}  // namespace cyclocc::cc

namespace cyclocc::cc {

ChemistBlock chemist_slices(const Tensor& aa, const Tensor& ab, const Tensor& bb, const SpinDims& dims) {
  auto cache = std::make_shared<std::map<std::string, Tensor>>();
  return [&aa, &ab, &bb, dims, cache](int s1, int s2, const std::string& spaces) -> const Tensor& {
    const std::string key = std::to_string(s1) + std::to_string(s2) + spaces;
    auto it = cache->find(key);
    if (it != cache->end()) return it->second;
    const Tensor& full = s1 == 0 ? (s2 == 0 ? aa : ab) : bb;
    std::vector<int> off, lens;
    for (int p = 0; p < 4; ++p) {
      const int spin = p < 2 ? s1 : s2;
      const char c = spin == 0 ? 'a' : 'b';
      off.push_back(spaces[p] == 'o' ? 0 : dims.len('o', c));
      lens.push_back(dims.len(spaces[p], c));
    }
    std::vector<Sym> sym(4, N);
    if (spaces[0] == spaces[1]) sym[0] = Sym::SY;
    if (spaces[2] == spaces[3]) sym[2] = Sym::SY;
    return cache->emplace(key, full.slice(off, tensor::Shape(lens, sym))).first->second;
  };
}

}  // namespace cyclocc::cc
