// CCSDT equations in the factorization of the Piecuch group's miniccpy
// (ccsdt.py with the CCSD similarity-transformed Hamiltonian H = [H_N e^(T1+T2)]_C
// of helper_cc.get_ccsd_intermediates): the T1 and T2 equations are CCSD's
// (ccsd.cpp) plus the terms with T3, and the T3 equation contracts T2 and T3
// with H. Transcribed into the conventions of tensor/contract.hpp: a term
// written there as c * A(abcijk) and then antisymmetrised over all 36
// permutations carries c * |H| here, where H is the group of permutations the
// product already has (its operands' antisymmetric groups), since the declared
// antisymmetry of the output adds each remaining coset once.
//
// Integral blocks other than the six stored ones (mo_integrals.hpp):
//   <am||ef> = -<ma||ef>, <am||ie> = -<ma||ie>, <am||ij> = -<ij||ma>, <ab||ie> = <ie||ab>.
#include "chem/cc/ccsdt.hpp"

#include "chem/cc/ccsd.hpp"

namespace cyclocc::cc {

using tensor::Sym;

namespace {

constexpr Sym N = Sym::NS, A = Sym::AS;


// The one- and two-body parts of H that the T3 equation needs (without the
// diagonal Fock matrix, which is in the denominators).
struct Hbar {
  SpinTensor ov, oo, vv;            // H(me), H(mi), H(ae)
  SpinTensor vovv, ooov;            // H(amef), H(mnie)
  SpinTensor vvvv, oooo, voov;      // H(abef), H(mnij), H(amie)
  SpinTensor vooo, vvov;            // H(amij), H(abie)
};

Hbar hbar(const MoIntegrals& mo, const SpinTensor& t1, const SpinTensor& t2) {
  auto z = [&](const char* spaces, std::vector<Sym> sym, const char* name) {
    return SpinTensor::zeros_like(t1, spaces, std::move(sym), name);
  };
  Hbar h{z("ov", {N, N}, "H_me"),
         z("oo", {N, N}, "H_mi"),
         z("vv", {N, N}, "H_ae"),
         z("vovv", {N, N, A, N}, "H_amef"),
         z("ooov", {A, N, N, N}, "H_mnie"),
         z("vvvv", {A, N, A, N}, "H_abef"),
         z("oooo", {A, N, A, N}, "H_mnij"),
         z("voov", {N, N, N, N}, "H_amie"),
         z("vooo", {N, N, A, N}, "H_amij"),
         z("vvov", {A, N, N, N}, "H_abie")};
  // One-body parts.
  h.ov["me"] = mo.oovv["mnef"] * t1["fn"];  // canonical orbitals: f_ov = 0
  h.oo["ji"] = h.ov["je"] * t1["ei"];
  h.oo["ji"] += mo.ooov["jmie"] * t1["em"];
  h.oo["ji"] += 0.5 * mo.oovv["jnef"] * t2["efin"];
  h.vv["ab"] = -1.0 * h.ov["mb"] * t1["am"];
  h.vv["ab"] -= mo.ovvv["mabe"] * t1["em"];
  h.vv["ab"] -= 0.5 * mo.oovv["mnbf"] * t2["afmn"];
  // T1-dressed <am||ef> and <mn||ie>, and their half-dressed forms I.
  SpinTensor q = SpinTensor::zeros_like(t1, "vovv", {N, N, A, N}, "Q_amef");
  q["amef"] = -1.0 * mo.oovv["mnfe"] * t1["an"];
  SpinTensor i_vovv = SpinTensor::zeros_like(t1, "vovv", {N, N, A, N}, "I_amef");
  i_vovv["amef"] = -1.0 * mo.ovvv["maef"];
  i_vovv["amef"] += 0.5 * q["amef"];
  h.vovv["amef"] = -1.0 * mo.ovvv["maef"];
  h.vovv["amef"] += q["amef"];
  SpinTensor p = SpinTensor::zeros_like(t1, "ooov", {A, N, N, N}, "Q_mnie");
  p["mnie"] = mo.oovv["mnfe"] * t1["fi"];
  SpinTensor i_ooov = SpinTensor::zeros_like(t1, "ooov", {A, N, N, N}, "I_mnie");
  i_ooov["mnie"] = mo.ooov["mnie"];
  i_ooov["mnie"] += 0.5 * p["mnie"];
  h.ooov["mnie"] = mo.ooov["mnie"];
  h.ooov["mnie"] += p["mnie"];
  // H(abef) = <ab||ef> + 1/2 <mn||ef> t_mn^ab - P(ab) I(bmfe) t_m^a.
  h.vvvv["abef"] = mo.vvvv.value()["abef"];
  h.vvvv["abef"] += 0.5 * mo.oovv["mnef"] * t2["abmn"];
  h.vvvv["abef"] -= i_vovv["bmfe"] * t1["am"];
  // H(mnij) = <mn||ij> + 1/2 <mn||ef> t_ij^ef + P(ij) I(nmje) t_i^e.
  h.oooo["mnij"] = mo.oooo["mnij"];
  h.oooo["mnij"] += 0.5 * mo.oovv["mnef"] * t2["efij"];
  h.oooo["mnij"] += i_ooov["nmje"] * t1["ei"];
  // H(amie) = <am||ie> + I(amfe) t_i^f - I(nmie) t_n^a + <nm||fe> t_in^af.
  h.voov["amie"] = -1.0 * mo.ovov["maie"];
  h.voov["amie"] += i_vovv["amfe"] * t1["fi"];
  h.voov["amie"] -= i_ooov["nmie"] * t1["an"];
  h.voov["amie"] += mo.oovv["nmfe"] * t2["afin"];
  // H(amij) = <am||ij> + P(ij)[H(mnjf) t_in^af + (<am||if> + 1/2 <am||ef> t_i^e) t_j^f]
  //           + H(me) t_ij^ae - H(nmij) t_n^a + 1/2 <am||ef> t_ij^ef.
  h.vooo["amij"] = -1.0 * mo.ooov["ijma"];
  h.vooo["amij"] += h.ooov["mnjf"] * t2["afin"];
  SpinTensor r = SpinTensor::zeros_like(t1, "voov", {N, N, N, N}, "Q_amif");
  r["amif"] = -1.0 * mo.ovov["maif"];
  r["amif"] -= 0.5 * mo.ovvv["maef"] * t1["ei"];
  h.vooo["amij"] += r["amif"] * t1["fj"];
  h.vooo["amij"] += h.ov["me"] * t2["aeij"];
  h.vooo["amij"] -= h.oooo["nmij"] * t1["an"];
  h.vooo["amij"] -= 0.5 * mo.ovvv["maef"] * t2["efij"];
  // H(abie) = <ab||ie> + P(ab)[H(bnef) t_in^af - (<mb||ie> - 1/2 <mn||ie> t_n^b) t_m^a]
  //           - H(me) t_im^ab + H(abfe) t_i^f + 1/2 <mn||ie> t_mn^ab,
  // held without its - H(me) t_im^ab: I_vvov (ccsdt_rhs) adds that term back.
  h.vvov["abie"] = mo.ovvv["ieab"];
  h.vvov["abie"] += h.vovv["bnef"] * t2["afin"];
  SpinTensor s = SpinTensor::zeros_like(t1, "ovov", {N, N, N, N}, "Q_mbie");
  s["mbie"] = mo.ovov["mbie"];
  s["mbie"] -= 0.5 * mo.ooov["mnie"] * t1["bn"];
  h.vvov["abie"] -= s["mbie"] * t1["am"];
  h.vvov["abie"] += h.vvvv["abfe"] * t1["fi"];
  h.vvov["abie"] += 0.5 * mo.ooov["mnie"] * t2["abmn"];
  return h;
}

// The terms of the T1 and T2 equations that contain T3. The T1-dressed
// <mn||if> and <an||ef> of miniccpy's doubles equation are H(mnie) and H(amef).
void add_t3_to_singles_doubles(const MoIntegrals& mo, const Hbar& h, const SpinTensor& t3, Amplitudes& r) {
  r.t1["ai"] += 0.25 * mo.oovv["mnef"] * t3["aefimn"];
  r.t2["abij"] += h.ov["me"] * t3["abeijm"];
  r.t2["abij"] -= 0.5 * h.ooov["mnif"] * t3["abfmjn"];
  r.t2["abij"] += 0.5 * h.vovv["anef"] * t3["ebfijn"];
}

}  // namespace

void ccsdt_rhs(const MoIntegrals& mo, const Amplitudes& t, Amplitudes& r) {
  ccsd_rhs(mo, t, r);
  const SpinTensor& t2 = t.t2;
  const SpinTensor& t3 = *t.t3;
  const Hbar h = hbar(mo, t.t1, t2);
  add_t3_to_singles_doubles(mo, h, t3, r);
  // Intermediates with T3 (miniccpy's I_vvov and I_vooo).
  SpinTensor ivvov = h.vvov;
  ivvov["abie"] -= 0.5 * mo.oovv["mnef"] * t3["abfimn"];
  SpinTensor ivooo = h.vooo;
  ivooo["amij"] += 0.5 * mo.oovv["mnef"] * t3["aefijn"];
  // The T3 equation; the output's antisymmetry adds P(a/bc) P(k/ij) etc.
  SpinTensor& r3 = *r.t3;
  r3["abcijk"] = -1.0 * ivooo["amij"] * t2["bcmk"];
  r3["abcijk"] += ivvov["abie"] * t2["ecjk"];
  r3["abcijk"] -= h.oo["mk"] * t3["abcijm"];
  r3["abcijk"] += h.vv["ce"] * t3["abeijk"];
  r3["abcijk"] += 0.5 * h.oooo["mnij"] * t3["abcmnk"];
  r3["abcijk"] += 0.5 * h.vvvv["abef"] * t3["efcijk"];
  r3["abcijk"] += h.voov["cmke"] * t3["abeijm"];
}

}  // namespace cyclocc::cc
