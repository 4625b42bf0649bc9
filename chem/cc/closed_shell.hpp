// Closed-shell (RHF) forms of CCSD terms: spatial-orbital equations on the
// spin layer's spatial blocks (tensor::spatial_block), where they take fewer flops or
// fewer passes than the spin-orbital terms they replace (ccsd.cpp). Each
// function's comment gives its equation; ccsd.cpp uses them when the
// integrals carry the closed-shell combinations (MoIntegrals::oovv_l).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "chem/cc/amplitudes.hpp"
#include "chem/cc/mo_integrals.hpp"

namespace cyclocc::cc::closed_shell {

// 2 x[labels] - x[swapped], e.g. u_ij^ab = 2 t_ij^ab - t_ij^ba ("abij",
// "baij") or L_mnef = 2 <mn|ef> - <mn|fe> ("mnef", "mnfe").
Tensor exchange_combination(const Tensor& x, const std::string& labels, const std::string& swapped,
                            const std::string& name);

// The parts of x symmetric (+) and antisymmetric (-) under the exchanges
// of the index pairs that `plus` marks SY (AS for the - part), packed:
// (x +- x exchanged) / 2 for one pair; for two pairs x must be unchanged
// when both exchange at once (<ab|ef> = <ba|fe>, tau_ij^ef = tau_ji^fe), and
// each part is (x +- x with one pair exchanged) / 2. Named name+ and name-.
std::vector<Tensor> exchange_parts(const Tensor& x, const std::vector<tensor::Sym>& plus, const std::string& name,
                                   const tensor::Mapping* map = nullptr);

// tau+-(ef,ij) = (tau_ij^ef +- tau_ij^fe) / 2 from tau's spatial block, packed in
// ef and ij (see add_ladders in closed_shell.cpp).
std::vector<Tensor> split_tau(const SpinTensor& tau);

// R (spatial block) += sum_ef <ab|ef> tau_ij^ef + sum_mn tau_mn^ab W_mnij, split (see
// closed_shell.cpp); wmnij holds W_mnij without its tau term.
void add_ladders(const MoIntegrals& mo, const std::vector<Tensor>& tau_pm, const SpinTensor& wmnij, SpinTensor& r2);

// out[xyij] += sum_ef V+-[xyef] tau+-[efij] over both signs, each through a
// part (named names[k]) with V's symmetry in xy and tau's in ij.
void add_split_product(const std::array<const Tensor*, 2>& v, const std::string& lv,
                       const std::vector<Tensor>& tau_pm, const std::array<const char*, 2>& names, Tensor& out);

// The two products of t1 with <ma|ef> that F_ae, W_mbej and R2 share
// (closed_shell.cpp): P_mbej = sum_f <mb|ef> t_j^f, Q_mbej = sum_f <mb|fe> t_j^f.
// delta is the unit matrix delta_jm over the occupied orbitals (traces are
// taken as products with it).
struct T1Ovvv {
  Tensor p, q;
  Tensor f;  // F_ae's t1 part: sum_m (2 Q_maem - P_maem)
};
T1Ovvv t1_ovvv(const MoIntegrals& mo, const SpinTensor& t1, const Tensor& delta);
// R2 += P(ij)P(ab) P_jabi: the spin-orbital P(ij) t_i^e <ab||ej>.
void add_t1_ovvv_r2(const T1Ovvv& pq, SpinTensor& r2);

// W_mbej's spatial blocks for the ring terms, each stored [e m b j] with the
// ranks along b (closed_shell.cpp): direct (m, e alpha; b, j beta) and
// exchanged (m, j alpha; b, e beta).
struct RingW {
  Tensor direct, exchanged;
};
// W_mbej (Eq. 8) without its last term, -(1/2 t_jn^fb + t_j^f t_n^b) <mn||ef>:
// <mb||ej> + t_j^f <mb||ef> - t_n^b <mn||ej>.
RingW ring_w(const MoIntegrals& mo, const SpinTensor& t1, const T1Ovvv& pq);
// R2 += P(ij)P(ab) t_im^ae W_mbej, W's last term added to w here (closed_shell.cpp).
void add_ring(const MoIntegrals& mo, const SpinTensor& t1, const SpinTensor& t2, RingW& w, SpinTensor& r2);

// F_ae += sum_m (2 Q_maem - P_maem) - tau~_mn^af L_mnef;
// F_mi += tau~_in^ef L_mnef;  F_me += t_n^f L_mnef.
void add_f_terms(const MoIntegrals& mo, const SpinTensor& t1, const SpinTensor& taut, const T1Ovvv& pq,
                 SpinTensor& fae, SpinTensor& fmi, SpinTensor& fme);

// r_i^a += u_im^ae F_me - u_mn^ae <mn|ie>.
void add_t1_terms(const MoIntegrals& mo, const Tensor& u, const SpinTensor& fme, SpinTensor& r1);
// r_i^a += u_im^fe <ma|ef>, from Z_maij = sum_ef <ma|ef> tau_ij^ef (the
// spatial block of z) and the T1Ovvv products, without a pass over <ma|ef>:
// sum_m (2 Z_mami - Z_maim) - t_i^e F_ae(t1 part) (closed_shell.cpp).
void add_t1_from_z(const T1Ovvv& pq, const SpinTensor& t1, const SpinTensor& z, const Tensor& delta,
                   SpinTensor& r1);

// R2 += P(ij)P(ab) of t_m^a (t_i^e <mb||je> - 1/2 Z_mbij - 1/2 <ij||mb>) over
// spins: the mirror half gains sum_m t_m^a M_mbij (closed_shell.cpp). z is
// ccsd.cpp's Z_maij = 1/2 <ma||ef> tau_ij^ef.
void add_t1_o3v(const MoIntegrals& mo, const SpinTensor& t1, const SpinTensor& z, SpinTensor& r2);

// E = L_ijab (t_ij^ab + t_i^a t_j^b) (canonical orbitals: f_ia = 0).
double energy(const MoIntegrals& mo, const Amplitudes& t);

}  // namespace cyclocc::cc::closed_shell
