// CCSD equations: J. F. Stanton, J. Gauss, J. D. Watts and R. J. Bartlett,
// J. Chem. Phys. 94, 4334 (1991), Eqs. 1-13, in the spin-orbital form printed
// in seeds/004 §IV.B and in psi4numpy's Coupled-Cluster/Spin_Orbitals/CCSD.
// Two standard refactorings avoid storing W_abef: its T1 part is applied as
// an o^3 v intermediate, and its tau.tau part is folded into W_mnij (whose
// tau term then carries 1/2 instead of 1/4).
//
// The factor conventions are those of tensor/contract.hpp: summed labels run
// over all values, and the declared antisymmetry of the output adds the
// permutations P(ab), P(ij) that a term lacks. Integral blocks other than the
// six stored ones are read through their symmetry:
//   <am||ef> = -<ma||ef>, <mb||ej> = -<mb||je>, <mn||ej> = -<mn||je>,
//   <ab||ej> = -<je||ab>, <mb||ij> = <ij||mb>, <na||if> = <na||if> (ovov).
//
// A closed-shell reference replaces some terms by their spatial-orbital forms
// (closed_shell.hpp), fewer products on the spatial blocks: `cs` below.
#include "chem/cc/ccsd.hpp"

#include <optional>
#include <stdexcept>
#include <vector>

#include "chem/cc/closed_shell.hpp"
#include "tensor/spin_pairs.hpp"

namespace cyclocc::cc {

using tensor::Sym;

namespace {

constexpr Sym N = Sym::NS, A = Sym::AS;

// The unit matrix delta_ij over the occupied orbitals of both spins.
SpinTensor occupied_unit(const SpinTensor& like) {
  SpinTensor d = SpinTensor::zeros_like(like, "oo", {N, N}, "delta_oo");
  for (const std::string& k : d.computed_keys())
    d.write_block(k).transform([](const int* i, double& v) { v = i[0] == i[1] ? 1.0 : 0.0; });
  return d;
}

// The ring terms of an open-shell reference, P(ij)P(ab) t_im^ae W_mbej, with
// W_mbej's t2 term -1/2 t_jn^fb <mn||ef> (Eq. 8), as products of
// particle-hole pair matrices (tensor/spin_pairs.hpp), one dgemm per class
// of pairs instead of one product per spin case. With
// T[(ai),(em)] = t_im^ae, V[(em),(fn)] = <mn||ef> and W'[(bj),(em)] =
// W_mbej less that term: T and V are symmetric (t_im^ae = t_mi^ea,
// <mn||ef> = <nm||fe>) and T[(bj),(fn)] = t_jn^bf = -t_jn^fb, so
//   W' += 1/2 T V,  R' = W' T,  r_ij^ab += P(ij)P(ab) R'[(bj),(ai)].
// T and V are whole on every rank; W' and R' held by rows (bj), W' read
// where W_mbej lies (along b).
void add_open_shell_ring(const MoIntegrals& mo, const SpinTensor& t2, const SpinTensor& w, SpinTensor& r2) {
  using tensor::PairMatrix;
  using Placement = PairMatrix::Placement;
  if (!mo.oovv_pairs) throw std::logic_error("CCSD: unrestricted integrals without V (build_mo_integrals makes it)");
  const PairMatrix& v = *mo.oovv_pairs;
  const PairMatrix t({{1.0, &t2, "aeim"}}, "ai", "em", Placement::whole, "t2");
  PairMatrix wp({{1.0, &w, "mbej"}}, "bj", "em", Placement::rows, "W_mbej");
  wp.add_product(0.5, t, v);
  PairMatrix::product(1.0, wp, t, "ring").add_to(1.0, r2, "abij", "bj", "ai");
}

}  // namespace

double ccsd_energy(const MoIntegrals& mo, const Amplitudes& t) {
  if (mo.oovv_l) return closed_shell::energy(mo, t);
  SpinTensor e = SpinTensor::zeros_like(t.t1, "", {}, "E");
  e[""] = 0.25 * mo.oovv["ijab"] * t.t2["abij"];
  SpinTensor x = SpinTensor::zeros_like(t.t1, "ov", {N, N}, "X_jb");
  x["jb"] = mo.oovv["ijab"] * t.t1["ai"];
  e[""] += 0.5 * x["jb"] * t.t1["bj"];
  return e.block("").scalar();
}

PairEnergies pair_energies(const MoIntegrals& mo, const Amplitudes& t) {
  // tau laid out as <ij||ab>, so that the energy is a dot product.
  SpinTensor tau = SpinTensor::zeros_like(mo.oovv, "tau");
  tau["ijab"] = t.t2["abij"];
  tau["ijab"] += 0.5 * t.t1["ai"] * t.t1["bj"];  // P(ij) through tau's antisymmetry
  // The packed dot products count each unique pair once: 1/4 of the sum
  // over all spin orbitals.
  const SpinTensor::SpinParts parts = mo.oovv.dot_by_spin(tau);
  return {parts.one_spin, parts.mixed};
}

void mp2_amplitudes(const MoIntegrals& mo, Amplitudes& t) {
  t.set_zero();  // t1 = f_ov / D = 0
  t.t2["abij"] = mo.oovv["ijab"];
  divide_by_denominators(t, mo);
}

void ccsd_rhs(const MoIntegrals& mo, const Amplitudes& t, Amplitudes& r) {
  namespace cs = closed_shell;
  const bool closed = mo.oovv_l.has_value();
  const SpinTensor& t1 = t.t1;
  const SpinTensor& t2 = t.t2;
  // The amplitudes, and each intermediate once complete, keep the layouts
  // that several products prepare of them alike.
  const tensor::HoldPrepared held({&t1, &t2});
  // tau = t2 + P(ij) t1 t1 and tau~ = t2 + 1/2 P(ij) t1 t1 = (t2 + tau) / 2
  // (the 0.5 becomes 1 times (t_i^a t_j^b - t_j^a t_i^b) through the output's
  // antisymmetry): one t1 t1 product for both.
  SpinTensor taut = SpinTensor::zeros_like(t2, "vvoo", {A, N, A, N}, "tau~");
  SpinTensor tau = SpinTensor::zeros_like(t2, "vvoo", {A, N, A, N}, "tau");
  tau["abij"] = t2["abij"];
  tau["abij"] += 0.5 * t1["ai"] * t1["bj"];
  taut["abij"] = 0.5 * t2["abij"];
  taut["abij"] += 0.5 * tau["abij"];
  tau.hold_prepared(true);
  taut.hold_prepared(true);
  // Closed shell: u = 2 t2 - t2 (exchanged), for the T1 terms (the ring terms
  // make theirs whole on every rank: cs::add_ring). The exchanged t_ij^ba is
  // read as t_ji^ab (t_ij^ab = t_ji^ba): the ranks split the virtual a, so
  // swapping i and j moves no data.
  const std::optional<Tensor> u =
      closed ? std::optional(cs::exchange_combination(tensor::spatial_block(t2), "abij", "abji", "2t2-t2"))
             : std::nullopt;
  if (u) u->hold_prepared(true);

  // delta_jm, for traces taken as products (F_ae's and the T1 equation's t1 <ov||vv> parts).
  const SpinTensor unit = occupied_unit(t1);
  // Closed shell: the products of t1 with <ma|ef> that F_ae, W_mbej and R2 share.
  const std::optional<cs::T1Ovvv> pq =
      closed ? std::optional(cs::t1_ovvv(mo, t1, tensor::spatial_block(unit))) : std::nullopt;

  // W_mbej (Eq. 8): <mb||ej> + t_j^f <mb||ef> - t_n^b <mn||ej> - (1/2 t_jn^fb + t_j^f t_n^b) <mn||ef>.
  // Closed shell: its spatial blocks laid out for the ring terms, all but the
  // last term here (cs::ring_w; the last in cs::add_ring). Open shell: its t1
  // <ov||vv> part first, F_ae takes its own from it (below).
  std::optional<cs::RingW> ring;
  std::optional<SpinTensor> wmbej;
  if (closed) {
    ring.emplace(cs::ring_w(mo, t1, *pq));
  } else {
    // With the ranks along b, where its pair matrix (rows bj) takes it.
    wmbej.emplace(SpinTensor(t1.ctx(), t1.dims(), "ovvo", {N, N, N, N}, "W_mbej", 1));
    (*wmbej)["mbej"] = t1["fj"] * mo.ovvv["mbef"];
  }

  // F_ae, F_mi, F_me (Eqs. 3-5), without the diagonal Fock (in the denominators).
  // Canonical orbitals: the Fock matrix is diagonal and its diagonal is in D,
  // so the terms in f_ov and in off-diagonal f_oo and f_vv vanish and are left out.
  SpinTensor fae = SpinTensor::zeros_like(t1, "vv", {N, N}, "F_ae");
  SpinTensor fmi = SpinTensor::zeros_like(t1, "oo", {N, N}, "F_mi");
  SpinTensor fme = SpinTensor::zeros_like(t1, "ov", {N, N}, "F_me");
  fmi["mi"] = t1["en"] * mo.ooov["mnie"];
  std::optional<SpinTensor> g;  // open shell: F_ae's t1 part, negated (the T1 equation reuses it)
  if (closed) {
    cs::add_f_terms(mo, t1, taut, *pq, fae, fmi, fme);
  } else {
    // t_m^f <ma||fe> = -G_ae, G_ae = sum_m X_maem with X_mbej = t_j^f <mb||ef>
    // (W's term above): one pass over <ov||vv> for both, the trace a product
    // with delta_jm.
    g.emplace(SpinTensor::zeros_like(t1, "vv", {N, N}, "G_ae"));
    (*g)["ae"] = (*wmbej)["maej"] * unit["jm"];
    fae["ae"] -= (*g)["ae"];
    fae["ae"] -= 0.5 * taut["afmn"] * mo.oovv["mnef"];
    fmi["mi"] += 0.5 * taut["efin"] * mo.oovv["mnef"];
    fme["me"] += t1["fn"] * mo.oovv["mnef"];
  }

  // W_mnij (Eq. 6) with the tau.tau part of W_abef folded in (1/4 -> 1/2).
  SpinTensor wmnij = SpinTensor::zeros_like(t1, "oooo", {A, N, A, N}, "W_mnij");
  wmnij["mnij"] = mo.oooo["mnij"];
  wmnij["mnij"] += t1["ej"] * mo.ooov["mnie"];
  if (!closed) wmnij["mnij"] += 0.5 * tau["efij"] * mo.oovv["mnef"];  // closed shell: in cs::add_ladders

  // W_mbej's other terms (closed shell: in cs::ring_w and cs::add_ring).
  if (!closed) {
    SpinTensor& w = *wmbej;
    w["mbej"] -= mo.ovov["mbje"];
    // -t_n^b <mn||ej> - t_j^f t_n^b <mn||ef> = t_n^b X_mnje with X_mnje =
    // <mn||je> - t_j^f <mn||ef> (the t2 term: add_open_shell_ring).
    SpinTensor x = SpinTensor::zeros_like(t1, "ooov", {A, N, N, N}, "X_mnje");
    x["mnje"] = mo.ooov["mnje"];
    x["mnje"] -= t1["fj"] * mo.oovv["mnef"];
    w["mbej"] += t1["bn"] * x["mnje"];
  }

  // T1 equation (Eq. 12).
  SpinTensor& r1 = r.t1;
  r1["ai"] = t1["ei"] * fae["ae"];
  r1["ai"] -= t1["am"] * fmi["mi"];
  r1["ai"] -= t1["fn"] * mo.ovov["naif"];
  if (closed) {
    cs::add_t1_terms(mo, *u, fme, r1);
  } else {
    r1["ai"] += t2["aeim"] * fme["me"];
    r1["ai"] += 0.5 * t2["aemn"] * mo.ooov["nmie"];  // and -1/2 t_im^ef <ma||ef> from Z below
  }

  // T2 equation (Eq. 13).
  SpinTensor& r2 = r.t2;
  r2["abij"] = mo.oovv["ijab"];
  // 1/2 tau_ij^ef W_abef without storing W_abef, and 1/2 tau_mn^ab W_mnij.
  const std::vector<Tensor> tau_pm = closed ? cs::split_tau(tau) : std::vector<Tensor>{};
  if (closed) {
    cs::add_ladders(mo, tau_pm, wmnij, r2);
  } else {
    r2["abij"] += 0.5 * mo.vvvv.value()["abef"] * tau["efij"];
    r2["abij"] += 0.5 * tau["abmn"] * wmnij["mnij"];
  }
  SpinTensor fbe = SpinTensor::zeros_like(t1, "vv", {N, N}, "F_be-");
  fbe["be"] = fae["be"];
  fbe["be"] -= 0.5 * t1["bm"] * fme["me"];
  r2["abij"] += t2["aeij"] * fbe["be"];
  SpinTensor fmj = SpinTensor::zeros_like(t1, "oo", {N, N}, "F_mj+");
  fmj["mj"] = fmi["mj"];
  fmj["mj"] += 0.5 * t1["ej"] * fme["me"];
  r2["abij"] -= t2["abim"] * fmj["mj"];
  SpinTensor z = SpinTensor::zeros_like(t1, "ovoo", {N, N, A, N}, "Z_maij");
  if (closed)
    cs::add_split_product({&*mo.ovvv_plus, &*mo.ovvv_minus}, "maef", tau_pm, {"Z+", "Z-"},
                          tensor::spatial_write_block(z));
  else
    z["maij"] = 0.5 * mo.ovvv["maef"] * tau["efij"];
  // Eq. 12's -1/2 t_im^ef <ma||ef> without a pass over the integrals. As
  // tau_im^ef = t_im^ef + P(ef) t_i^e t_m^f, sum_m Z_maim = -(the term) +
  // sum_mef <ma||ef> t_i^e t_m^f, and the last sum is t_i^e G_ae.
  if (closed) {
    cs::add_t1_from_z(*pq, t1, z, tensor::spatial_block(unit), r1);
  } else {
    r1["ai"] -= z["main"] * unit["nm"];
    r1["ai"] += t1["ei"] * (*g)["ae"];
  }
  // P(ij)P(ab) (t_im^ae W_mbej - t_i^e t_m^a <mb||ej>).
  if (closed) {
    cs::add_ring(mo, t1, t2, *ring, r2);
  } else {
    add_open_shell_ring(mo, t2, *wmbej, r2);
  }
  // P(ij) t_i^e <ab||ej>.
  if (closed) cs::add_t1_ovvv_r2(*pq, r2);
  else r2["abij"] -= t1["ei"] * mo.ovvv["jeab"];
  // -P(ij)P(ab) t_i^e t_m^a <mb||ej>, P(ab) t_m^b Z_maij and -P(ab) t_m^a <mb||ij>
  // as one product with t1: P(ij)P(ab) t_m^a S_mbij. Z and <ij||mb> are
  // antisymmetric in ij and S is not, so the product adds P(ij) to their
  // parts too: they enter S halved (and t_m^b Z_maij as -t_m^a Z_mbij under P(ab)).
  if (closed) {
    cs::add_t1_o3v(mo, t1, z, r2);
  } else {
    SpinTensor s = SpinTensor::zeros_like(t1, "ovoo", {N, N, N, N}, "S_mbij");
    s["mbij"] = t1["ei"] * mo.ovov["mbje"];
    s["mbij"] -= 0.5 * z["mbij"];
    s["mbij"] -= 0.5 * mo.ooov["ijmb"];
    r2["abij"] += t1["am"] * s["mbij"];
  }
}

}  // namespace cyclocc::cc
