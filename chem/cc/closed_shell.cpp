// Closed-shell CCSD terms (closed_shell.hpp). Each is the spin-orbital term
// of ccsd.cpp summed over spins for t_ij^ab = t_ji^ba (alpha = beta), written
// on the spin layer's spatial blocks (tensor::spatial_block; i, a alpha and
// j, b beta): t_ij^ab is spatial_block(T2)[abij], <pq|rs> the spatial
// integral, <mn|ef> = spatial_block(oovv)[mnef], <ma|ef> =
// spatial_block(ovvv)[maef], <mn|ie> = spatial_block(ooov)[mnie]. The tests
// compare every residual with the dense spin-orbital twin.
#include "chem/cc/closed_shell.hpp"

#include <optional>

#include "tensor/pair_product.hpp"

#include <stdexcept>

namespace cyclocc::cc::closed_shell {

using tensor::Pairing;
using tensor::spatial_block;
using tensor::spatial_mirror_half;
using tensor::spatial_write_block;
using tensor::Sym;

namespace {
constexpr Sym N = Sym::NS, A = Sym::AS;
}  // namespace

Tensor exchange_combination(const Tensor& x, const std::string& labels, const std::string& swapped,
                            const std::string& name) {
  Tensor u = Tensor::zeros_like(x, name);
  tensor::sum(2.0, x, labels, 0.0, u, labels);
  tensor::sum(-1.0, x, swapped, 1.0, u, labels);
  return u;
}

std::vector<Tensor> exchange_parts(const Tensor& x, const std::vector<Sym>& plus, const std::string& name,
                                   const tensor::Mapping* map) {
  const std::string labels = std::string("abcdefgh").substr(0, plus.size());
  // The output's groups add every permutation of them (with sign): 2 terms
  // per group, of which each distinct one appears 2^(groups - 1) times.
  double factor = 1.0;
  for (Sym s : plus) factor *= s == Sym::SY ? 0.5 : 1.0;
  // With a mapping given, x moves into it once and both parts are local
  // sums (each part would otherwise redistribute x on its own).
  std::optional<Tensor> moved;
  if (map && !(x.mapping().normalized() == map->normalized())) {
    moved.emplace(x.ctx(), x.shape(), *map, x.name());
    tensor::sum(1.0, x, labels, 0.0, *moved, labels);
  }
  const Tensor& src = moved ? *moved : x;
  std::vector<Tensor> parts;
  for (const bool minus : {false, true}) {
    std::vector<Sym> sym = plus;
    for (Sym& s : sym) s = minus && s == Sym::SY ? A : s;
    const tensor::Shape shape(x.shape().lens, sym);
    const std::string n = name + (minus ? "-" : "+");
    if (map) parts.emplace_back(x.ctx(), shape, *map, n);
    else parts.emplace_back(x.ctx(), shape, n);
    tensor::sum(factor, src, labels, 0.0, parts.back(), labels);
  }
  return parts;
}

// The particle-particle ladder of closed-shell CCSD, R_ij^ab += sum_ef <ab|ef>
// tau_ij^ef over spatial orbitals (the spatial block of 1/2 <ab||ef> tau_ij^ef),
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
// The hole-hole ladder sum_mn tau_mn^ab W_mnij splits the same way over mn
// (tau_mn^ab = tau_nm^ba, W_mnij = W_nmji), and so does W_mnij's own tau
// term sum_ef <mn|ef> tau_ij^ef, with g+-(mn,ef) = (<mn|ef> +- <mn|fe>) / 2:
//   R+- += tau+-(ab,mn) W+-(mn,ij),  W+- = W's other terms, split, + g+-(mn,ef) tau+-(ef,ij).
//
// The same split halves Z_maij = sum_ef <ma|ef> tau_ij^ef (the spatial block of
// 1/2 <ma||ef> tau_ij^ef): Z = sum_ef V+-(ma,ef) tau+-(ef,ij), V+- =
// (<ma|ef> +- <ma|fe>) / 2, the parts symmetric (antisymmetric) in ij.

std::vector<Tensor> split_tau(const SpinTensor& tau) {
  // Along the pair ef, as the ladder splits it (and the integrals' ef): tau
  // moves once, into that mapping, and its parts are local sums there.
  const Tensor& t = spatial_block(tau);
  const auto along_ef = tensor::Mapping::along(t.ctx().nranks(), 0, 2);
  return exchange_parts(t, {Sym::SY, N, Sym::SY, N}, "tau", &along_ef);
}

namespace {

// part[xyij] = sum_ef V[xyef] tau[efij] for one sign, packed as V in xy and
// as tau in ij, with out's edge lengths.
Tensor split_part(const Tensor& v, const std::string& lv, const Tensor& tau, const Tensor& out, const char* name) {
  const auto& vs = v.shape().sym;
  Tensor part(out.ctx(), tensor::Shape(out.shape().lens, {vs[0], vs[1], tau.shape().sym[0], N}), name);
  tensor::contract(1.0, v, lv, tau, "efij", 0.0, part, lv.substr(0, 2) + "ij");
  return part;
}

}  // namespace

void add_split_product(const std::array<const Tensor*, 2>& v, const std::string& lv,
                       const std::vector<Tensor>& tau_pm, const std::array<const char*, 2>& names, Tensor& out) {
  const std::string lo = lv.substr(0, 2) + "ij";
  for (int k = 0; k < 2; ++k) tensor::sum(1.0, split_part(*v[k], lv, tau_pm[k], out, names[k]), lo, 1.0, out, lo);
}

void add_ladders(const MoIntegrals& mo, const std::vector<Tensor>& tau_pm, const SpinTensor& wmnij, SpinTensor& r2) {
  Tensor& r = spatial_write_block(r2);
  const std::array<const Tensor*, 2> v{&*mo.vvvv_plus, &*mo.vvvv_minus}, g{&*mo.oovv_plus, &*mo.oovv_minus};
  std::vector<Tensor> w_pm = exchange_parts(spatial_block(wmnij), {Sym::SY, N, Sym::SY, N}, "W_mnij");
  std::vector<Tensor> parts;
  for (int k = 0; k < 2; ++k) {
    Tensor& w = w_pm[k];
    tensor::contract(1.0, *g[k], "mnef", tau_pm[k], "efij", 1.0, w, "mnij");
    parts.push_back(split_part(*v[k], "abef", tau_pm[k], r, k ? "R-" : "R+"));
    tensor::contract(1.0, tau_pm[k], "abmn", w, "mnij", 1.0, parts.back(), "abij");
  }
  // Where R lies elsewhere, R+ + R- is unpacked where the parts are (local
  // sums) and moves into R once, not once per part (P5b at 2 ranks: the
  // ladders' sums 5-8 -> 4.3 ms per iteration, 12% fewer words in all).
  Tensor* into = &r;
  std::optional<Tensor> both;
  if (!(parts[0].mapping().normalized() == r.mapping().normalized()))
    into = &both.emplace(r.ctx(), tensor::Shape(r.shape().lens, {N, N, N, N}), parts[0].mapping(), "R+ + R-");
  for (const Tensor& part : parts) tensor::sum(1.0, part, "abij", 1.0, *into, "abij");
  if (both) tensor::sum(1.0, *both, "abij", 1.0, r, "abij");
}

// The ring terms P(ij)P(ab) t_im^ae W_mbej of closed-shell CCSD with two
// products fewer. In spatial orbitals, with A and B W_mbej's direct and
// exchanged blocks (<m b-bar||e j-bar> and <m b-bar||e-bar j>) and t the
// amplitudes t_ij^ab, R's spatial block gains X + X(ba,ji):
//   X_ij^ab = sum_me (2 t_im^ae - t_im^ea) D_mbej + 1/2 Y_ij^ab + Y_ji^ab,
//   Y_ij^ab = sum_me t_im^ea B_mbej,  D = A + B/2,
// where the t2 part of D is one product (as in the D and C intermediates of
// H. Koch, O. Christiansen, R. Kobayashi, P. Jorgensen and T. Helgaker, Chem.
// Phys. Lett. 228, 233 (1994)):
//   D_mbej += 1/2 sum_nf (t_nj^fb - 1/2 t_nj^bf - t_j^f t_n^b) L_mnef,  L_mnef = 2 <mn|ef> - <mn|fe>,
// and B's is B_mbej += sum_nf (1/2 t_jn^fb + t_j^f t_n^b) <mn|fe>.
//
// Layouts: the four o^3 v^3 products all keep b and j as their columns. So
// W, the t2 combinations the products take as columns, and X lie with the
// ranks along b, where the products write or read them; the combinations
// they take as rows are made whole on every rank from one copy of t2
// gathered once (t2 lies along a: runs of v o^2). The products move nothing,
// and X reaches R through R's mirror half, which lies along a, as X(ba,ji)
// does. (Gathering each W whole instead cost about 1 ms per W at 2 ranks on
// P5a, most of it in the gathers' runs of o elements.)

namespace {

// An unpacked tensor in like's context with the given edge lengths.
Tensor unpacked(const Tensor& like, const std::vector<int>& lens, const tensor::Mapping& map, const char* name) {
  return Tensor(like.ctx(), tensor::Shape(lens, std::vector<Sym>(lens.size(), N)), map, name);
}

}  // namespace

RingW ring_w(const MoIntegrals& mo, const SpinTensor& t1, const T1Ovvv& pq) {
  const Tensor& ta = spatial_block(t1);
  const int v = ta.shape().lens[0], o = ta.shape().lens[1];
  const auto along_b = tensor::Mapping::along(ta.ctx().nranks(), 2, 3);
  RingW w{unpacked(ta, {v, o, v, o}, along_b, "W_mbej direct"),
          unpacked(ta, {v, o, v, o}, along_b, "W_mbej exchanged")};
  Tensor& a = w.direct;
  Tensor& b = w.exchanged;
  // <mb||ej> = -<mb||je>: the direct block reads <ov||ov>(abba), the exchanged one <ov||ov>(abab).
  tensor::sum(-1.0, spatial_block(mo.ovov, Pairing::exchanged), "mbje", 1.0, a, "embj");
  tensor::sum(-1.0, spatial_block(mo.ovov), "mbje", 1.0, b, "embj");
  // t_j^f <mb||ef>: P into the direct block and -Q into the exchanged one (t1_ovvv).
  tensor::sum(1.0, pq.p, "mbej", 1.0, a, "embj");
  tensor::sum(-1.0, pq.q, "mbej", 1.0, b, "embj");
  // -t_n^b <mn||ej>: -sum_n t_n^b <nm|je> into the direct block, sum_n t_n^b <mn|je> into the exchanged one.
  tensor::contract(-1.0, ta, "bn", spatial_block(mo.ooov), "nmje", 1.0, a, "embj");
  tensor::contract(1.0, ta, "bn", spatial_block(mo.ooov), "mnje", 1.0, b, "embj");
  return w;
}

void add_ring(const MoIntegrals& mo, const SpinTensor& t1, const SpinTensor& t2, RingW& w, SpinTensor& r2) {
  const Tensor& t = spatial_block(t2);
  const Tensor& ta = spatial_block(t1);
  Tensor& d = w.direct;
  Tensor& b = w.exchanged;
  // W's blocks give the edge lengths ([e m b j]) and the mapping along b.
  const int v = d.shape().lens[0], o = d.shape().lens[1];
  const tensor::Mapping& along_b = d.mapping();
  const int P = t.ctx().nranks();
  const auto whole = tensor::Mapping::replicated(P);
  Tensor tw(t.ctx(), t.shape(), whole, "t2 (whole)");
  tensor::sum(1.0, t, "abij", 0.0, tw, "abij");
  tensor::sum(0.5, b, "embj", 1.0, d, "embj");  // D = A + B/2, B still without its t2 part
  // B's t2 part from y_jn^fb = 1/2 t_jn^fb + t_j^f t_n^b, D's from
  // t_nj^fb - 1/2 t_nj^bf - t_j^f t_n^b = t_nj^fb - y_jn^fb, both [n f b j]
  // (t_jn^fb read as t_nj^bf, as stored, j last).
  Tensor y = unpacked(t, {o, v, v, o}, along_b, "t2/2+t1t1");
  tensor::sum(0.5, tw, "bfnj", 0.0, y, "nfbj");
  tensor::contract(1.0, ta, "fj", ta, "bn", 1.0, y, "nfbj");
  {
    Tensor z = unpacked(t, {o, v, v, o}, along_b, "t2-t2/2-t1t1");
    tensor::sum(1.0, tw, "fbnj", 0.0, z, "nfbj");
    tensor::sum(-1.0, y, "nfbj", 1.0, z, "nfbj");
    tensor::contract(0.5, z, "nfbj", *mo.oovv_l, "mnef", 1.0, d, "embj");
  }
  tensor::contract(1.0, y, "nfbj", spatial_block(mo.oovv), "mnfe", 1.0, b, "embj");
  // X less its last term, and Y, as [b j a i] with the ranks along b.
  const auto along_b_first = tensor::Mapping::along(P, 0, 1);
  Tensor x = unpacked(t, {v, o, v, o}, along_b_first, "X_ring");
  {
    Tensor u = unpacked(t, {v, o, v, o}, whole, "2t2-t2 (whole)");  // u_im^ae at [a i e m]
    tensor::sum(2.0, tw, "aeim", 0.0, u, "aiem");
    tensor::sum(-1.0, tw, "eaim", 1.0, u, "aiem");
    tensor::contract(1.0, u, "aiem", d, "embj", 0.0, x, "bjai");
  }
  // Y_ij^ab = sum_me t_mi^ae B_mbej (t_im^ea read as t_mi^ae), read twice.
  Tensor y2 = unpacked(t, {v, o, v, o}, along_b_first, "t2*B");
  {
    Tensor tm = unpacked(t, {v, o, v, o}, whole, "t2 (whole, emai)");  // t_mi^ae at [e m a i]
    tensor::sum(1.0, tw, "aemi", 0.0, tm, "emai");
    tensor::contract(1.0, tm, "emai", b, "embj", 0.0, y2, "bjai");
  }
  tensor::sum(0.5, y2, "bjai", 1.0, x, "bjai");
  // R gets X + X(ba,ji), which is H + H(ba,ji) for H = X(ba,ji): the mirror
  // half takes X(ba,ji) = x(ba,ji) + Y_ij^ba, whose a is X's b, on the same ranks.
  Tensor& h = spatial_mirror_half(r2);
  tensor::sum(1.0, x, "aibj", 1.0, h, "abij");
  tensor::sum(1.0, y2, "ajbi", 1.0, h, "abij");
}

// The terms linear in t1 and the <ov||vv> integrals, on the spatial <ma|ef>
// (real orbitals: <pq|rs> = <ps|rq>, so <ja|bA> = <jA|ba>), come from two
// products:
//   P_mbej = sum_f <mb|ef> t_j^f,  Q_mbej = sum_f <mb|fe> t_j^f.
// W_mbej (Eq. 8), t_j^f <mb||ef>: its direct block gains P, its exchanged
// block -Q. R2 (Eq. 13), P(ij) t_i^e <ab||ej>: the mirror half of the spatial
// block gains sum_e t_i^e <je|ba> = P_jabi. F_ae (Eq. 3), t_m^f <ma||fe> over
// both spins of m: sum_mf t_m^f (2 <ma|fe> - <ma|ef>) = sum_m (2 Q_maem - P_maem),
// traces taken as contractions with the unit matrix delta_jm. One pass over
// the integrals for each of P and Q, instead of one per term.
T1Ovvv t1_ovvv(const MoIntegrals& mo, const SpinTensor& t1, const Tensor& delta) {
  const Tensor& ta = spatial_block(t1);
  const Tensor& v = spatial_block(mo.ovvv);
  const int n = ta.shape().lens[0];
  auto pq = tensor::contract_both_orders(1.0, v, "mbef", ta, "fj", "mbej", "P_mbej", "Q_mbej");
  T1Ovvv out{std::move(pq.p), std::move(pq.q), Tensor(ta.ctx(), tensor::Shape({n, n}, {N, N}), "F_ae(t1)")};
  tensor::contract(2.0, out.q, "maej", delta, "jm", 0.0, out.f, "ae");
  tensor::contract(-1.0, out.p, "maej", delta, "jm", 1.0, out.f, "ae");
  return out;
}

void add_t1_ovvv_r2(const T1Ovvv& pq, SpinTensor& r2) {
  tensor::sum(1.0, pq.p, "jabi", 1.0, spatial_mirror_half(r2), "abij");
}

// F_ae (Eq. 3): t_m^f <ma||fe> (from P and Q above) and -1/2 tau~_mn^af <mn||ef>
// over spins; F_mi (Eq. 4): 1/2 tau~_in^ef <mn||ef>; F_me (Eq. 5): t_n^f <mn||ef>.
void add_f_terms(const MoIntegrals& mo, const SpinTensor& t1, const SpinTensor& taut, const T1Ovvv& pq,
                 SpinTensor& fae, SpinTensor& fmi, SpinTensor& fme) {
  const Tensor& ta = spatial_block(t1);
  const Tensor& tt = spatial_block(taut);
  const Tensor& L = *mo.oovv_l;
  Tensor& ae = spatial_write_block(fae);
  tensor::sum(1.0, pq.f, "ae", 1.0, ae, "ae");
  tensor::contract(-1.0, tt, "afmn", L, "mnef", 1.0, ae, "ae");
  // tau~_in^ef read as tau~_ni^fe: [fen|i] is tau~ as stored, no copy.
  tensor::contract(1.0, tt, "feni", L, "mnef", 1.0, spatial_write_block(fmi), "mi");
  tensor::contract(1.0, ta, "fn", L, "mnef", 1.0, spatial_write_block(fme), "me");
}

// Eq. 12's t2 terms: t_im^ae F_me - 1/2 t_im^ef <ma||ef> + 1/2 t_mn^ae <nm||ie>
// (the middle one in add_t1_from_z).
void add_t1_terms(const MoIntegrals& mo, const Tensor& u, const SpinTensor& fme, SpinTensor& r1) {
  Tensor& r = spatial_write_block(r1);
  tensor::contract(1.0, u, "aeim", spatial_block(fme), "me", 1.0, r, "ai");
  tensor::contract(-1.0, u, "aemn", spatial_block(mo.ooov), "mnie", 1.0, r, "ai");
}

// Eq. 12's -1/2 t_im^ef <ma||ef> over spins is sum_mef u_im^fe <ma|ef>, u =
// 2 t - t^x. With tau_ij^ef = t_ij^ef + t_i^e t_j^f and tau_ij^ef = tau_ji^fe,
// Z_maij = sum_ef <ma|ef> tau_ij^ef gives
//   sum_m (2 Z_mami - Z_maim) = sum_mef (2 tau_im^fe - tau_im^ef) <ma|ef>
//     = sum_mef u_im^fe <ma|ef> + sum_e t_i^e sum_m (2 Q_maem - P_maem),
// whose last part is t_i^e times F_ae's t1 part (P, Q: t1_ovvv above). So the
// term costs two traces of Z instead of a pass over the o v^3 integrals.
void add_t1_from_z(const T1Ovvv& pq, const SpinTensor& t1, const SpinTensor& z, const Tensor& delta,
                   SpinTensor& r1) {
  Tensor& r = spatial_write_block(r1);
  const Tensor& zs = spatial_block(z);
  tensor::contract(2.0, zs, "mani", delta, "nm", 1.0, r, "ai");
  tensor::contract(-1.0, zs, "main", delta, "nm", 1.0, r, "ai");
  tensor::contract(-1.0, spatial_block(t1), "ei", pq.f, "ae", 1.0, r, "ai");
}

// The spin-orbital terms -P(ij)P(ab) t_i^e t_m^a <mb||ej>, P(ab) t_m^b Z_maij
// and -P(ab) t_m^a <mb||ij> of R2 (Eq. 13), on the mirror half x (R = x +
// x(ba,ji)), are one product of t1 with an o^3 v intermediate:
//   x_ij^ab += sum_m t_m^a M_mbij,
//   M_mbij = -sum_e t_i^e <mb|ej> - sum_e t_j^e <mb|ie> - Z_mbij - <ij|mb>,
// with Z_mbij = sum_ef <mb|ef> tau_ij^ef (z's spatial block). The spin
// blocks hold <ov||ov>(abab)[mbje] = <mb|je>, <ov||ov>(abba)[mbje] = -<mb|ej>
// and <oo||ov>(abab)[ijmb] = <ij|mb>. Four products into R become one.
void add_t1_o3v(const MoIntegrals& mo, const SpinTensor& t1, const SpinTensor& z, SpinTensor& r2) {
  const Tensor& ta = spatial_block(t1);
  const Tensor& zs = spatial_block(z);
  Tensor m(zs.ctx(), tensor::Shape(zs.shape().lens, {N, N, N, N}), zs.mapping(), "M_mbij");
  tensor::sum(-1.0, zs, "mbij", 0.0, m, "mbij");
  tensor::sum(-1.0, spatial_block(mo.ooov), "ijmb", 1.0, m, "mbij");
  tensor::contract(1.0, ta, "ei", spatial_block(mo.ovov, Pairing::exchanged), "mbje", 1.0, m, "mbij");
  tensor::contract(-1.0, ta, "ej", spatial_block(mo.ovov), "mbie", 1.0, m, "mbij");
  tensor::contract(1.0, ta, "am", m, "mbij", 1.0, spatial_mirror_half(r2), "abij");
}

double energy(const MoIntegrals& mo, const Amplitudes& t) {
  const Tensor& ta = spatial_block(t.t1);
  const Tensor& L = *mo.oovv_l;
  const double e2 = spatial_block(t.t2).dot(*mo.vvoo_l);  // sum_ijab L_ijab t_ij^ab
  Tensor e(ta.ctx(), tensor::Shape({}, {}), "E");
  Tensor x(ta.ctx(), tensor::Shape({L.shape().lens[0], L.shape().lens[2]}, {N, N}), "X_jb");
  tensor::contract(1.0, L, "ijab", ta, "ai", 0.0, x, "jb");
  tensor::contract(1.0, x, "jb", ta, "bj", 0.0, e, "");
  return e2 + e.scalar();
}

}  // namespace cyclocc::cc::closed_shell
