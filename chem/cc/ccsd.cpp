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
#include "chem/cc/ccsd.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

namespace cyclocc::cc {

using tensor::Sym;

namespace {

constexpr Sym N = Sym::NS, A = Sym::AS;

// The particle-particle ladder of closed-shell CCSD, R_ij^ab += sum_ef <ab|ef>
// tau_ij^ef over spatial orbitals (the abab block of 1/2 <ab||ef> tau_ij^ef),
// split by symmetry (G. E. Scuseria, C. L. Janssen and H. F. Schaefer,
// J. Chem. Phys. 89, 7382 (1988)). As <ab|ef> = <ba|fe>, the part of R
// symmetric (antisymmetric) in ab sees only the part of tau symmetric
// (antisymmetric) in ef:
//   R+-(ab,ij) = sum_ef V+-(ab,ef) tau+-(ef,ij),
//   V+-(ab,ef) = (<ab|ef> +- <ab|fe>) / 2,  tau+-(ef,ij) = (tau_ij^ef +- tau_ij^fe) / 2.
// As tau_ji^fe = tau_ij^ef (closed shell), tau+- and R+- are also symmetric
// (antisymmetric) in ij. Each runs over packed pairs a <= b, e <= f, i <= j
// (a < b, e < f, i < j): a quarter of the flops and half the integrals of the
// full product.
//
// The same split halves Z_maij = sum_ef <ma|ef> tau_ij^ef (the abab block of
// 1/2 <ma||ef> tau_ij^ef): Z = sum_ef V+-(ma,ef) tau+-(ef,ij), V+- =
// (<ma|ef> +- <ma|fe>) / 2, the parts symmetric (antisymmetric) in ij.

// tau+- from tau's abab block, packed in ef and ij.
std::vector<Tensor> split_tau(const SpinTensor& tau) {
  const Tensor& t = tau.block("abab");
  std::vector<Tensor> pm;
  for (const Sym s : {Sym::SY, A}) {
    pm.emplace_back(t.ctx(), tensor::Shape(t.shape().lens, {s, N, s, N}), s == Sym::SY ? "tau+" : "tau-");
    // The SY (AS) output adds +- tau_ij^fe, +- tau_ji^ef and tau_ji^fe = tau_ij^ef.
    tensor::sum(0.25, t, "efij", 0.0, pm.back(), "efij");
  }
  return pm;
}

// out[xyij] += sum_ef V+-[xyef] tau+-[efij] over both signs, each through a
// part (named names[k]) with V's symmetry in xy and tau's in ij.
void add_split_product(const std::array<const Tensor*, 2>& v, const std::string& lv,
                       const std::vector<Tensor>& tau_pm, const std::array<const char*, 2>& names, Tensor& out) {
  const std::string lo = lv.substr(0, 2) + "ij";
  for (int k = 0; k < 2; ++k) {
    const auto& vs = v[k]->shape().sym;
    Tensor part(out.ctx(), tensor::Shape(out.shape().lens, {vs[0], vs[1], tau_pm[k].shape().sym[0], N}), names[k]);
    tensor::contract(1.0, *v[k], lv, tau_pm[k], "efij", 0.0, part, lo);
    tensor::sum(1.0, part, lo, 1.0, out, lo);
  }
}

// A computed (not derived) block of a restricted intermediate, to write.
Tensor& computed_block(SpinTensor& x, const std::string& spins = "abab") {
  if (x.derived(spins)) throw std::logic_error("ccsd: " + x.name() + "(" + spins + ") is not a computed block");
  return x.write_block(spins);
}

// The ring terms P(ij)P(ab) t_im^ae W_mbej of closed-shell CCSD with one
// product fewer. In spatial orbitals, with A = W_mbej(abab), B = W_mbej(abba)
// and t the abab amplitudes t_ij^ab, the abab block of R gains X + X(ba,ji):
//   X_ij^ab = sum_me [ (2 t_im^ae - t_im^ea) D_mbej + 1/2 t_im^ea B_mbej + t_mj^ae B_mbei ],
//   D = A + B/2,
// where the t2 part of D is one product (as in the D and C intermediates of
// H. Koch, O. Christiansen, R. Kobayashi, P. Jorgensen and T. Helgaker, Chem.
// Phys. Lett. 228, 233 (1994)):
//   D_mbej += 1/2 sum_nf (t_nj^fb - 1/2 t_nj^bf - t_j^f t_n^b) L_mnef,  L_mnef = 2 <mn|ef> - <mn|fe>,
// and B's is B_mbej += sum_nf (1/2 t_jn^fb + t_j^f t_n^b) <mn|fe>. `w` holds
// A and B without their t2 parts.
void closed_shell_ring(const MoIntegrals& mo, const SpinTensor& t1, const SpinTensor& t2, const SpinTensor& y,
                       SpinTensor& w, SpinTensor& r2) {
  const Tensor& t = t2.block("abab");
  const Tensor& ta = t1.block("aa");
  Tensor& d = computed_block(w);
  Tensor& b = computed_block(w, "abba");
  tensor::sum(0.5, b, "mbej", 1.0, d, "mbej");
  Tensor zt = Tensor::zeros_like(t, "t2-t2/2-t1t1");
  tensor::sum(1.0, t, "fbnj", 0.0, zt, "fbnj");
  tensor::sum(-0.5, t, "bfnj", 1.0, zt, "fbnj");
  tensor::contract(-1.0, ta, "fj", ta, "bn", 1.0, zt, "fbnj");
  tensor::contract(0.5, zt, "fbnj", *mo.oovv_l, "mnef", 1.0, d, "mbej");
  tensor::contract(1.0, y.block("abab"), "fbjn", mo.oovv.block("abab"), "mnfe", 1.0, b, "mbej");

  Tensor u = Tensor::zeros_like(t, "2t2-t2");
  tensor::sum(2.0, t, "aeim", 0.0, u, "aeim");
  tensor::sum(-1.0, t, "eaim", 1.0, u, "aeim");
  Tensor& x = r2.mirror_half("abab");  // R(abab) gets x + x(ba,ji)
  tensor::contract(1.0, u, "aeim", d, "mbej", 1.0, x, "abij");
  tensor::contract(0.5, t, "eaim", b, "mbej", 1.0, x, "abij");
  tensor::contract(1.0, t, "aemj", b, "mbei", 1.0, x, "abij");
}

}  // namespace

double ccsd_energy(const MoIntegrals& mo, const Amplitudes& t) {
  SpinTensor e = SpinTensor::zeros_like(t.t1, "", {}, "E");
  e[""] = mo.f_ov["ia"] * t.t1["ai"];
  e[""] += 0.25 * mo.oovv["ijab"] * t.t2["abij"];
  SpinTensor x = SpinTensor::zeros_like(t.t1, "ov", {N, N}, "X_jb");
  x["jb"] = mo.oovv["ijab"] * t.t1["ai"];
  e[""] += 0.5 * x["jb"] * t.t1["bj"];
  return e.block("").scalar();
}

void mp2_amplitudes(const MoIntegrals& mo, Amplitudes& t) {
  t.set_zero();
  t.t1["ai"] = mo.f_ov["ia"];
  t.t2["abij"] = mo.oovv["ijab"];
  divide_by_denominators(t, mo);
}

void ccsd_rhs(const MoIntegrals& mo, const Amplitudes& t, Amplitudes& r) {
  const SpinTensor& t1 = t.t1;
  const SpinTensor& t2 = t.t2;
  // tau~ = t2 + 1/2 P(ij) t1 t1 and tau = t2 + P(ij) t1 t1 (the 0.25 and 0.5
  // become 1/2 and 1 times (t_i^a t_j^b - t_j^a t_i^b) through the output's
  // antisymmetry).
  SpinTensor taut = SpinTensor::zeros_like(t2, "vvoo", {A, N, A, N}, "tau~");
  SpinTensor tau = SpinTensor::zeros_like(t2, "vvoo", {A, N, A, N}, "tau");
  taut["abij"] = t2["abij"];
  taut["abij"] += 0.25 * t1["ai"] * t1["bj"];
  tau["abij"] = t2["abij"];
  tau["abij"] += 0.5 * t1["ai"] * t1["bj"];

  // F_ae, F_mi, F_me (Eqs. 3-5), without the diagonal Fock (in the denominators).
  // Canonical orbitals: f_vv and f_oo are diagonal, and the diagonal is in D.
  SpinTensor fae = SpinTensor::zeros_like(t1, "vv", {N, N}, "F_ae");
  fae["ae"] = -0.5 * t1["am"] * mo.f_ov["me"];
  fae["ae"] += t1["fm"] * mo.ovvv["mafe"];
  fae["ae"] -= 0.5 * taut["afmn"] * mo.oovv["mnef"];

  SpinTensor fmi = SpinTensor::zeros_like(t1, "oo", {N, N}, "F_mi");
  fmi["mi"] = 0.5 * mo.f_ov["me"] * t1["ei"];
  fmi["mi"] += t1["en"] * mo.ooov["mnie"];
  fmi["mi"] += 0.5 * taut["efin"] * mo.oovv["mnef"];

  SpinTensor fme = SpinTensor::zeros_like(t1, "ov", {N, N}, "F_me");
  fme["me"] = mo.f_ov["me"];
  fme["me"] += t1["fn"] * mo.oovv["mnef"];

  // W_mnij (Eq. 6) with the tau.tau part of W_abef folded in (1/4 -> 1/2).
  SpinTensor wmnij = SpinTensor::zeros_like(t1, "oooo", {A, N, A, N}, "W_mnij");
  wmnij["mnij"] = mo.oooo["mnij"];
  wmnij["mnij"] += t1["ej"] * mo.ooov["mnie"];
  wmnij["mnij"] += 0.5 * tau["efij"] * mo.oovv["mnef"];

  // W_mbej (Eq. 8): <mb||ej> + t_j^f <mb||ef> - t_n^b <mn||ej> - (1/2 t_jn^fb + t_j^f t_n^b) <mn||ef>.
  SpinTensor wmbej = SpinTensor::zeros_like(t1, "ovvo", {N, N, N, N}, "W_mbej");
  wmbej["mbej"] = -1.0 * mo.ovov["mbje"];
  wmbej["mbej"] += t1["fj"] * mo.ovvv["mbef"];
  wmbej["mbej"] += t1["bn"] * mo.ooov["mnje"];
  SpinTensor y = SpinTensor::zeros_like(t1, "vvoo", {N, N, N, N}, "t2/2+t1t1");
  y["fbjn"] = 0.5 * t2["fbjn"];
  y["fbjn"] += t1["fj"] * t1["bn"];
  if (!mo.oovv_l) wmbej["mbej"] -= y["fbjn"] * mo.oovv["mnef"];  // closed shell: in closed_shell_ring

  // T1 equation (Eq. 12).
  SpinTensor& r1 = r.t1;
  r1["ai"] = mo.f_ov["ia"];
  r1["ai"] += t1["ei"] * fae["ae"];
  r1["ai"] -= t1["am"] * fmi["mi"];
  r1["ai"] += t2["aeim"] * fme["me"];
  r1["ai"] -= t1["fn"] * mo.ovov["naif"];
  r1["ai"] -= 0.5 * t2["efim"] * mo.ovvv["maef"];
  r1["ai"] += 0.5 * t2["aemn"] * mo.ooov["nmie"];

  // T2 equation (Eq. 13).
  SpinTensor& r2 = r.t2;
  r2["abij"] = mo.oovv["ijab"];
  // 1/2 tau_ij^ef W_abef without storing W_abef.
  const std::vector<Tensor> tau_pm = mo.vvvv_plus ? split_tau(tau) : std::vector<Tensor>{};
  if (mo.vvvv_plus)
    add_split_product({&*mo.vvvv_plus, &*mo.vvvv_minus}, "abef", tau_pm, {"R+", "R-"}, computed_block(r2));
  else
    r2["abij"] += 0.5 * mo.vvvv.value()["abef"] * tau["efij"];
  SpinTensor fbe = SpinTensor::zeros_like(t1, "vv", {N, N}, "F_be-");
  fbe["be"] = fae["be"];
  fbe["be"] -= 0.5 * t1["bm"] * fme["me"];
  r2["abij"] += t2["aeij"] * fbe["be"];
  SpinTensor fmj = SpinTensor::zeros_like(t1, "oo", {N, N}, "F_mj+");
  fmj["mj"] = fmi["mj"];
  fmj["mj"] += 0.5 * t1["ej"] * fme["me"];
  r2["abij"] -= t2["abim"] * fmj["mj"];
  r2["abij"] += 0.5 * tau["abmn"] * wmnij["mnij"];
  SpinTensor z = SpinTensor::zeros_like(t1, "ovoo", {N, N, A, N}, "Z_maij");
  if (mo.ovvv_plus)
    add_split_product({&*mo.ovvv_plus, &*mo.ovvv_minus}, "maef", tau_pm, {"Z+", "Z-"}, computed_block(z));
  else
    z["maij"] = 0.5 * mo.ovvv["maef"] * tau["efij"];
  r2["abij"] += t1["bm"] * z["maij"];
  // P(ij)P(ab) (t_im^ae W_mbej - t_i^e t_m^a <mb||ej>).
  if (mo.oovv_l) closed_shell_ring(mo, t1, t2, y, wmbej, r2);
  else r2["abij"] += t2["aeim"] * wmbej["mbej"];
  SpinTensor s = SpinTensor::zeros_like(t1, "ovoo", {N, N, N, N}, "S_mbij");
  s["mbij"] = t1["ei"] * mo.ovov["mbje"];
  r2["abij"] += t1["am"] * s["mbij"];
  // P(ij) t_i^e <ab||ej> - P(ab) t_m^a <mb||ij>.
  r2["abij"] -= t1["ei"] * mo.ovvv["jeab"];
  r2["abij"] -= t1["am"] * mo.ooov["ijmb"];
}

}  // namespace cyclocc::cc
