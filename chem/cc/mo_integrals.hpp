// The integrals the correlated methods consume: spin-integrated Fock and
// antisymmetrized two-electron blocks <pq||rs> over the active orbitals, as
// SpinTensors of the tensor layer (tensor/spin.hpp).
//
// Stored blocks (the others follow from <pq||rs> = -<qp||rs> = <rs||pq> for
// real orbitals): oooo, ooov, oovv, ovov, ovvv, vvvv. Every spin-conserving
// spin pattern is kept, assigned per index position (DESIGN.md §8), e.g.
// <iA||jB> = (ij|AB) and <iA||Jb> = -(ib|AJ) are different blocks of ovov.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tensor/spin.hpp"
#include "tensor/spin_pairs.hpp"

namespace cyclocc::cc {

using tensor::SpinDims;
using tensor::SpinTensor;
using tensor::Tensor;

struct MoIntegrals {
  SpinDims dims;
  // Orbital energies of the active occupied and virtual orbitals per spin.
  std::array<std::vector<double>, 2> eps_occ, eps_vir;
  SpinTensor f_oo, f_ov, f_vv;
  SpinTensor oooo, ooov, oovv, ovov, ovvv;
  // Only when asked for (CCSDT, and unrestricted CCSD): restricted CCSD uses
  // the closed-shell ladder's halves below instead, MP2 neither.
  std::optional<SpinTensor> vvvv;
  // Restricted only: the opposite-spin <ab|ef> = vvvv's spatial block split into its
  // parts symmetric and antisymmetric under e <-> f (equal to those under
  // a <-> b, as <ab|ef> = <ba|fe>), packed: (<ab|ef> +- <ab|fe>) / 2, with
  // SY or AS groups (ab) and (ef). For the closed-shell ladder (ccsd.cpp).
  std::optional<Tensor> vvvv_plus, vvvv_minus;
  // With them: <ma|ef> = ovvv's spatial block split the same way under e <-> f,
  // (<ma|ef> +- <ma|fe>) / 2 with an SY or AS group (ef), for Z_maij.
  std::optional<Tensor> ovvv_plus, ovvv_minus;
  // And <mn|ef> = oovv's spatial block likewise, (<mn|ef> +- <mn|fe>) / 2 with SY or
  // AS groups (mn) and (ef), for W_mnij.
  std::optional<Tensor> oovv_plus, oovv_minus;
  // And L_mnef = 2 <mn|ef> - <mn|fe> from oovv, for the closed-shell terms
  // (closed_shell.hpp).
  std::optional<Tensor> oovv_l;
  // And L_ijab laid out as the amplitudes' spatial block t_ij^ab ("abij",
  // the default mapping), so that the energy sum_ijab L_ijab t_ij^ab is a
  // dot product of what each rank holds.
  std::optional<Tensor> vvoo_l;

  // Unrestricted CCSD: <mn||ef> as the particle-hole pair matrix
  // V[(em),(fn)] of the ring terms, whole on every rank (ccsd.cpp).
  std::optional<tensor::PairMatrix> oovv_pairs;

  // vvvv_along_ef: <vv||vv>'s blocks with all ranks along the ket pair ef,
  // or f where e and f differ in spin (built a window of rows at a time; the
  // ladder splits its contracted ef over the ranks likewise).
  MoIntegrals(tensor::Context& ctx, const SpinDims& d, bool with_vvvv, bool vvvv_along_ef = false);
};

// Chemist-notation MO integrals (pq|rs) over the active orbitals: the block
// with p, q of spin s1 (0 alpha, 1 beta) in spaces[0], spaces[1] and r, s of
// spin s2 in spaces[2], spaces[3] ('o' or 'v', a pair written occupied
// first), shape [n_p, n_q, n_r, n_s] with SY(pq) where p and q share a space
// and SY(rs) likewise. s1 <= s2.
using ChemistBlock = std::function<const Tensor&(int s1, int s2, const std::string& spaces)>;

// Rows [first, first + count) of the first index of the (vv|vv) block of
// spins s1 <= s2 (as ChemistBlock's): (ae|bf) with a in the window, shape
// [count, v_s1, v_s2, v_s2] with SY(bf) (the chemist block's rows, a and e
// unpaired). A new tensor per call.
using ChemistRows = std::function<Tensor(int s1, int s2, int first, int count)>;

// Which of the largest integrals a method needs: MP2 none; CCSD its ladder
// (`ladder`: the closed-shell halves below for a restricted reference, the
// <vv||vv> blocks for an unrestricted one); CCSDT also the <vv||vv> blocks
// (`blocks`).
struct VvvvNeeds {
  bool blocks = true;
  bool ladder = true;
};

// Builds the antisymmetrized blocks and the (diagonal, canonical) Fock blocks.
// A restricted ladder's halves, and an unrestricted CCSD's <vv||vv> blocks
// (which only its ladder reads), come from `vvvv_rows` a window of rows at a
// time (vvvv_row_window), so that the whole (vv|vv) blocks are never held;
// without it, from windows sliced out of chem's whole (vv|vv) blocks. For
// CCSDT, <vv||vv> is made from chem's whole blocks.
MoIntegrals build_mo_integrals(tensor::Context& ctx, const SpinDims& dims,
                               const std::array<std::vector<double>, 2>& eps_occ,
                               const std::array<std::vector<double>, 2>& eps_vir, const ChemistBlock& chem,
                               VvvvNeeds needs = {}, const ChemistRows& vvvv_rows = {});

// Rows of (vv|vv) per window for the ladder's integrals: an eighth of
// the v virtual orbitals (at least one), so that a window's temporaries stay
// below the halves themselves.
int vvvv_row_window(int v);

// A ChemistBlock that cuts the blocks out of whole (pq|rs) tensors over all
// active orbitals (occupied first), [n1,n1,n2,n2] SY(pq) SY(rs), one per spin
// pair aa, ab, bb. Slow; for tests.
ChemistBlock chemist_slices(const Tensor& aa, const Tensor& ab, const Tensor& bb, const SpinDims& dims);

}  // namespace cyclocc::cc
