#include "chem/cc/mo_integrals.hpp"

#include <stdexcept>

namespace cyclocc::cc {

using tensor::Sym;

namespace {

constexpr Sym N = Sym::NS, A = Sym::AS;

// Antisymmetric pairs where both indices of a bra or ket pair share a space.
std::vector<Sym> pair_sym(const std::string& sp) {
  return {sp[0] == sp[1] ? A : N, N, sp[2] == sp[3] ? A : N, N};
}

// <pq|rs> = (pr|qs) for the spin pattern of block `key` (zero unless the
// spins of p, r and of q, s agree), from the chemist blocks.
void fill_direct(const ChemistBlock& chem, const std::string& spaces, const std::string& key, Tensor& m) {
  if (key[0] != key[2] || key[1] != key[3]) return;
  // (p r | q s), or (q s | p r) when the pr pair is beta and qs alpha.
  std::string order = key[0] <= key[1] ? "prqs" : "qspr";
  auto space = [&](char label) { return spaces[std::string("pqrs").find(label)]; };
  // Inside a pair the occupied index comes first; (pr|..) = (rp|..) for real orbitals.
  for (int pair : {0, 2})
    if (space(order[pair]) == 'v' && space(order[pair + 1]) == 'o') std::swap(order[pair], order[pair + 1]);
  std::string cspaces;
  for (char label : order) cspaces += space(label);
  const int s1 = (key[0] <= key[1] ? key[0] : key[1]) == 'a' ? 0 : 1;
  const int s2 = (key[0] <= key[1] ? key[1] : key[0]) == 'a' ? 0 : 1;
  tensor::sum(1.0, chem(s1, s2, cspaces), order, 0.0, m, "pqrs");
}

// The non-antisymmetrized <pq|rs> over the spaces of a block, all spin patterns.
SpinTensor direct(tensor::Context& ctx, const SpinDims& d, const ChemistBlock& chem, const std::string& spaces) {
  SpinTensor m(ctx, d, spaces, {N, N, N, N}, "<" + spaces + ">");
  for (const auto& key : m.block_keys()) fill_direct(chem, spaces, key, m.block(key));
  return m;
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

MoIntegrals::MoIntegrals(tensor::Context& ctx, const SpinDims& d)
    : dims(d),
      f_oo(ctx, d, "oo", {N, N}, "f_oo"),
      f_ov(ctx, d, "ov", {N, N}, "f_ov"),
      f_vv(ctx, d, "vv", {N, N}, "f_vv"),
      oooo(ctx, d, "oooo", pair_sym("oooo"), "<oo||oo>"),
      ooov(ctx, d, "ooov", pair_sym("ooov"), "<oo||ov>"),
      oovv(ctx, d, "oovv", pair_sym("oovv"), "<oo||vv>"),
      ovov(ctx, d, "ovov", pair_sym("ovov"), "<ov||ov>"),
      ovvv(ctx, d, "ovvv", pair_sym("ovvv"), "<ov||vv>"),
      vvvv(ctx, d, "vvvv", pair_sym("vvvv"), "<vv||vv>") {}

MoIntegrals build_mo_integrals(tensor::Context& ctx, const SpinDims& d,
                               const std::array<std::vector<double>, 2>& eps_occ,
                               const std::array<std::vector<double>, 2>& eps_vir, const ChemistBlock& chem) {
  MoIntegrals mo(ctx, d);
  mo.eps_occ = eps_occ;
  mo.eps_vir = eps_vir;
  fill_fock(mo.f_oo, eps_occ, eps_vir);
  fill_fock(mo.f_vv, eps_occ, eps_vir);
  // <pq||rs> = <pq|rs> - <pq|sr>. Where a pair shares a space the declared
  // antisymmetry adds the exchange term itself (contract.hpp, §8), and where
  // both pairs do it adds it twice, hence the 1/2.
  mo.oooo["pqrs"] = 0.5 * direct(ctx, d, chem, "oooo")["pqrs"];
  mo.ooov["pqrs"] = direct(ctx, d, chem, "ooov")["pqrs"];
  mo.oovv["pqrs"] = 0.5 * direct(ctx, d, chem, "oovv")["pqrs"];
  mo.ovov["pqrs"] = direct(ctx, d, chem, "ovov")["pqrs"];
  mo.ovov["pqrs"] -= direct(ctx, d, chem, "ovvo")["pqsr"];
  mo.ovvv["pqrs"] = direct(ctx, d, chem, "ovvv")["pqrs"];
  mo.vvvv["pqrs"] = 0.5 * direct(ctx, d, chem, "vvvv")["pqrs"];
  // Fixed from here on: contractions keep their prepared copies.
  for (SpinTensor* t : {&mo.f_oo, &mo.f_ov, &mo.f_vv, &mo.oooo, &mo.ooov, &mo.oovv, &mo.ovov, &mo.ovvv, &mo.vvvv})
    t->set_constant(true);
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
