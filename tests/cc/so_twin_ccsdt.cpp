// Dense spin-orbital twin of the CCSDT equations: the Piecuch group's
// miniccpy ccsdt.py (singles, doubles and triples residuals, with the
// similarity-transformed Hamiltonians of helper_cc.py) transcribed term by
// term with dense arrays. Canonical orbitals: the Fock matrix is diagonal and
// its diagonal is in the denominators, so f = 0 here and the residuals are the
// right-hand sides that the fast code computes.
#include <string>

#include "tests/cc/so_twin.hpp"

namespace twin {

namespace {

using dense::Array;

// einsum("la,lb->lc") with a factor, over dense arrays.
Array ein(double alpha, const std::string& spec, const Array& A, const Array& B) {
  const auto comma = spec.find(','), arrow = spec.find("->");
  const std::string la = spec.substr(0, comma), lb = spec.substr(comma + 1, arrow - comma - 1),
                    lc = spec.substr(arrow + 2);
  std::vector<int> clens;
  for (char c : lc) {
    const auto pa = la.find(c);
    clens.push_back(pa != std::string::npos ? A.lens[pa] : B.lens[lb.find(c)]);
  }
  return dense::product(alpha, A, la, B, lb, clens, lc);
}

Array& add(Array& x, const Array& y, double s = 1.0) {
  for (std::size_t i = 0; i < x.v.size(); ++i) x.v[i] += s * y.v[i];
  return x;
}

// np.transpose(x, axes) for a permutation that is its own inverse.
Array tr(const Array& x, std::vector<int> axes) { return dense::permute(x, axes); }

struct G {
  const System& s;
  // The block of <pq||rs> over the given spaces ('o' or 'v').
  Array operator()(const std::string& sp) const {
    std::vector<int> lens;
    for (char c : sp) lens.push_back(c == 'o' ? s.no : s.nv);
    Array a(lens);
    auto at = [&](char c, int k) { return c == 'o' ? k : s.no + k; };
    dense::for_all(lens, [&](const std::vector<int>& x) {
      a(x) = s.V(at(sp[0], x[0]), at(sp[1], x[1]), at(sp[2], x[2]), at(sp[3], x[3]));
    });
    return a;
  }
};

}  // namespace

void ccsdt_rhs(const System& s, const Amps& t, Amps& r) {
  const int o = s.no, v = s.nv;
  const G g{s};
  const Array& t1 = t.t1;
  const Array& t2 = t.t2;
  const Array& t3 = t.t3;
  const Array oovv = g("oovv"), ooov = g("ooov"), vovv = g("vovv"), voov = g("voov"), vooo = g("vooo"),
              vvov = g("vvov"), vvvv = g("vvvv"), oooo = g("oooo"), ovov = g("ovov"), vovo = g("vovo"),
              ovvo = g("ovvo"), oovo = g("oovo"), ovvv = g("ovvv"), vvoo = g("vvoo"), vvvo = g("vvvo"),
              ovoo = g("ovoo");
  Array f_ov({o, v}), f_vv({v, v}), f_oo({o, o}), f_vo({v, o});  // zero (see above)

  // ---- singles (miniccpy singles_residual) ----
  Array chi_vv = f_vv;
  add(chi_vv, ein(1, "anef,fn->ae", vovv, t1));
  Array chi_oo = f_oo;
  add(chi_oo, ein(1, "mnif,fn->mi", ooov, t1));
  Array h_ov = f_ov;
  add(h_ov, ein(1, "mnef,fn->me", oovv, t1));
  Array h_oo = chi_oo;
  add(h_oo, ein(1, "me,ei->mi", h_ov, t1));
  Array h_ooov = ooov;
  add(h_ooov, ein(1, "mnfe,fi->mnie", oovv, t1));
  Array h_vovv = vovv;
  add(h_vovv, ein(-1, "mnfe,an->amef", oovv, t1));
  Array r1 = ein(-1, "mi,am->ai", h_oo, t1);
  add(r1, ein(1, "ae,ei->ai", chi_vv, t1));
  add(r1, ein(1, "anif,fn->ai", voov, t1));
  add(r1, ein(1, "me,aeim->ai", h_ov, t2));
  add(r1, ein(-0.5, "mnif,afmn->ai", h_ooov, t2));
  add(r1, ein(0.5, "anef,efin->ai", h_vovv, t2));
  add(r1, ein(0.25, "mnef,aefimn->ai", oovv, t3));
  add(r1, f_vo);
  r.t1 = r1;

  // ---- doubles (miniccpy doubles_residual with get_ccs_intermediates) ----
  Array H1ov = f_ov;
  add(H1ov, ein(1, "mnef,fn->me", oovv, t1));
  Array H1vv = f_vv;
  add(H1vv, ein(1, "anef,fn->ae", vovv, t1));
  add(H1vv, ein(-1, "me,am->ae", H1ov, t1));
  Array H1oo = f_oo;
  add(H1oo, ein(1, "mnif,fn->mi", ooov, t1));
  add(H1oo, ein(1, "me,ei->mi", H1ov, t1));
  Array H2ooov = ein(1, "mnfe,fi->mnie", oovv, t1);
  Array x = ooov;
  add(x, H2ooov, 0.5);
  Array H2oooo = oooo;
  for (double& e : H2oooo.v) e *= 0.5;
  add(H2oooo, ein(1, "nmje,ei->mnij", x, t1));
  add(H2oooo, tr(H2oooo, {0, 1, 3, 2}), -1);
  Array H2vovv = ein(-1, "mnfe,an->amef", oovv, t1);
  Array y = vovv;
  add(y, H2vovv, 0.5);
  Array H2voov = voov;
  add(H2voov, ein(1, "amfe,fi->amie", y, t1));
  add(H2voov, ein(-1, "nmie,an->amie", x, t1));
  Array L = voov;
  add(L, ein(0.5, "amef,ei->amif", vovv, t1));
  Array X_mnij = oooo;
  add(X_mnij, ein(1, "mnie,ej->mnij", H2ooov, t1));
  Array H2vooo = vooo;
  for (double& e : H2vooo.v) e *= 0.5;
  add(H2vooo, ein(1, "amie,ej->amij", L, t1));
  add(H2vooo, ein(-0.25, "mnij,am->anij", X_mnij, t1));
  add(H2vooo, tr(H2vooo, {0, 1, 3, 2}), -1);
  Array L2 = ein(1, "mnie,am->anie", ooov, t1);
  Array H2vvov = vvov;
  add(H2vvov, ein(1, "anie,bn->abie", L2, t1));

  Array I_oo = H1oo;
  add(I_oo, ein(0.5, "mnef,efin->mi", oovv, t2));
  Array I_vv = H1vv;
  add(I_vv, ein(-0.5, "mnef,afmn->ae", oovv, t2));
  Array I_voov = H2voov;
  add(I_voov, ein(0.5, "mnef,afin->amie", oovv, t2));
  Array I_oooo = H2oooo;
  add(I_oooo, ein(0.5, "mnef,efij->mnij", oovv, t2));
  Array z = vovv;
  add(z, H2vovv, 0.5);
  Array I_vooo = H2vooo;
  add(I_vooo, ein(0.5, "anef,efij->anij", z, t2));
  Array tau = t2;
  for (double& e : tau.v) e *= 0.5;
  add(tau, ein(1, "ai,bj->abij", t1, t1));
  Array r2 = ein(-0.5, "amij,bm->abij", I_vooo, t1);
  add(r2, ein(0.5, "abie,ej->abij", H2vvov, t1));
  add(r2, ein(0.5, "ae,ebij->abij", I_vv, t2));
  add(r2, ein(-0.5, "mi,abmj->abij", I_oo, t2));
  add(r2, ein(1, "amie,ebmj->abij", I_voov, t2));
  add(r2, ein(0.25, "abef,efij->abij", vvvv, tau));
  add(r2, ein(0.125, "mnij,abmn->abij", I_oooo, t2));
  add(r2, ein(0.25, "me,abeijm->abij", H1ov, t3));
  Array w = ooov;
  add(w, H2ooov);
  add(r2, ein(-0.25, "mnif,abfmjn->abij", w, t3));
  Array zz = vovv;
  add(zz, H2vovv);
  add(r2, ein(0.25, "anef,ebfijn->abij", zz, t3));
  add(r2, tr(r2, {1, 0, 2, 3}), -1);
  add(r2, tr(r2, {0, 1, 3, 2}), -1);
  add(r2, vvoo);
  r.t2 = r2;

  // ---- triples (miniccpy triples_residual with get_ccsd_intermediates) ----
  Array K1ov = f_ov;
  add(K1ov, ein(1, "imae,em->ia", oovv, t1));
  Array K1oo = f_oo;
  add(K1oo, ein(1, "je,ei->ji", K1ov, t1));
  add(K1oo, ein(1, "jmie,em->ji", ooov, t1));
  add(K1oo, ein(0.5, "jnef,efin->ji", oovv, t2));
  Array K1vv = f_vv;
  add(K1vv, ein(-1, "mb,am->ab", K1ov, t1));
  add(K1vv, ein(1, "ambe,em->ab", vovv, t1));
  add(K1vv, ein(-0.5, "mnbf,afmn->ab", oovv, t2));
  Array Q1 = ein(-1, "mnfe,an->amef", oovv, t1);
  Array Ivovv = vovv;
  add(Ivovv, Q1, 0.5);
  Array K2vovv = Ivovv;
  add(K2vovv, Q1, 0.5);
  Q1 = ein(1, "mnfe,fi->mnie", oovv, t1);
  Array Iooov = ooov;
  add(Iooov, Q1, 0.5);
  Array K2ooov = Iooov;
  add(K2ooov, Q1, 0.5);
  Q1 = ein(-1, "bmfe,am->abef", Ivovv, t1);
  add(Q1, tr(Q1, {1, 0, 2, 3}), -1);
  Array K2vvvv = vvvv;
  add(K2vvvv, ein(0.5, "mnef,abmn->abef", oovv, t2));
  add(K2vvvv, Q1);
  Q1 = ein(1, "nmje,ei->mnij", Iooov, t1);
  add(Q1, tr(Q1, {0, 1, 3, 2}), -1);
  Array K2oooo = oooo;
  add(K2oooo, ein(0.5, "mnef,efij->mnij", oovv, t2));
  add(K2oooo, Q1);
  Array K2voov = voov;
  add(K2voov, ein(1, "amfe,fi->amie", Ivovv, t1));
  add(K2voov, ein(-1, "nmie,an->amie", Iooov, t1));
  add(K2voov, ein(1, "nmfe,afin->amie", oovv, t2));
  Q1 = ein(1, "mnjf,afin->amij", K2ooov, t2);
  Array Q2 = voov;
  add(Q2, ein(0.5, "amef,ei->amif", vovv, t1));
  add(Q1, ein(1, "amif,fj->amij", Q2, t1));
  add(Q1, tr(Q1, {0, 1, 3, 2}), -1);
  Array K2vooo = vooo;
  add(K2vooo, Q1);
  add(K2vooo, ein(1, "me,aeij->amij", K1ov, t2));
  add(K2vooo, ein(-1, "nmij,an->amij", K2oooo, t1));
  add(K2vooo, ein(0.5, "amef,efij->amij", vovv, t2));
  Q1 = ein(1, "bnef,afin->abie", K2vovv, t2);
  Q2 = ovov;
  add(Q2, ein(-0.5, "mnie,bn->mbie", ooov, t1));
  add(Q1, ein(-1, "mbie,am->abie", Q2, t1));
  add(Q1, tr(Q1, {1, 0, 2, 3}), -1);
  Array K2vvov = vvov;
  add(K2vvov, Q1);
  add(K2vvov, ein(-1, "me,abim->abie", K1ov, t2));
  add(K2vvov, ein(1, "abfe,fi->abie", K2vvvv, t1));
  add(K2vvov, ein(0.5, "mnie,abmn->abie", ooov, t2));

  Array J_vvov = K2vvov;
  add(J_vvov, ein(-0.5, "mnef,abfimn->abie", oovv, t3));
  add(J_vvov, ein(1, "me,abim->abie", K1ov, t2));
  Array J_vooo = K2vooo;
  add(J_vooo, ein(0.5, "mnef,aefijn->amij", oovv, t3));
  Array r3 = ein(-0.25, "amij,bcmk->abcijk", J_vooo, t2);
  add(r3, ein(0.25, "abie,ecjk->abcijk", J_vvov, t2));
  add(r3, ein(-1.0 / 12.0, "mk,abcijm->abcijk", K1oo, t3));
  add(r3, ein(1.0 / 12.0, "ce,abeijk->abcijk", K1vv, t3));
  add(r3, ein(1.0 / 24.0, "mnij,abcmnk->abcijk", K2oooo, t3));
  add(r3, ein(1.0 / 24.0, "abef,efcijk->abcijk", K2vvvv, t3));
  add(r3, ein(0.25, "cmke,abeijm->abcijk", K2voov, t3));
  add(r3, tr(r3, {0, 1, 2, 3, 5, 4}), -1);
  {
    const Array a = tr(r3, {0, 1, 2, 4, 3, 5}), b = tr(r3, {0, 1, 2, 5, 4, 3});
    add(r3, a, -1);
    add(r3, b, -1);
  }
  add(r3, tr(r3, {0, 2, 1, 3, 4, 5}), -1);
  {
    const Array a = tr(r3, {2, 1, 0, 3, 4, 5}), b = tr(r3, {1, 0, 2, 3, 4, 5});
    add(r3, a, -1);
    add(r3, b, -1);
  }
  r.t3 = r3;
  (void)vovo;
  (void)ovvo;
  (void)oovo;
  (void)ovvv;
  (void)vvvo;
  (void)ovoo;
}

}  // namespace twin
