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
#include <vector>

#include "tensor/spin.hpp"

namespace cyclocc::cc {

using tensor::SpinDims;
using tensor::SpinTensor;
using tensor::Tensor;

struct MoIntegrals {
  SpinDims dims;
  // Orbital energies of the active occupied and virtual orbitals per spin.
  std::array<std::vector<double>, 2> eps_occ, eps_vir;
  SpinTensor f_oo, f_ov, f_vv;
  SpinTensor oooo, ooov, oovv, ovov, ovvv, vvvv;

  MoIntegrals(tensor::Context& ctx, const SpinDims& d);
};

// Chemist-notation MO integrals (pq|rs) over the active orbitals of one spin
// pair: p, q of spin s1 and r, s of spin s2, occupied orbitals first, shape
// [n1, n1, n2, n2] with SY(pq) and SY(rs). For RHF all three may be the same.
struct ChemistIntegrals {
  const Tensor* aa = nullptr;
  const Tensor* ab = nullptr;  // pq alpha, rs beta
  const Tensor* bb = nullptr;
};

// Builds the antisymmetrized blocks and the (diagonal, canonical) Fock blocks.
MoIntegrals build_mo_integrals(tensor::Context& ctx, const SpinDims& dims,
                               const std::array<std::vector<double>, 2>& eps_occ,
                               const std::array<std::vector<double>, 2>& eps_vir, const ChemistIntegrals& chem);

}  // namespace cyclocc::cc
