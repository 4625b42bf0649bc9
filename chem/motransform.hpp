// The MO integral transformation: AO electron-repulsion integrals (libint2,
// shell quartets split over the ranks) in a distributed packed tensor, four
// quarter transformations as tensor contractions (dgemm), then the
// antisymmetrized spin blocks the correlated methods use (chem/cc/mo_integrals).
//
// Memory per rank (P ranks, N basis functions, n = o + v active orbitals):
//   AO tensor N^4/(4P) words, plus N^4/(2P) while its ket pair is unpacked for
//   the first quarter transformation, then N^3 n/(2P), N^2 n^2/(4P) per spin,
//   and n^4/(4P) per spin pair; the spin blocks at the end hold
//   about (o+v)^4/(4P) words in total for RHF-like sizes. No rank holds the
//   whole AO or MO integral set when P > 1.
#pragma once

#include <array>
#include <cstddef>
#include <functional>

#include "chem/basis.hpp"
#include "chem/cc/mo_integrals.hpp"
#include "chem/scf.hpp"
#include "parallel/log.hpp"
#include "tensor/context.hpp"

namespace cyclocc::chem {

// Orbitals taking part in the correlated calculation, per spin.
struct ActiveSpace {
  std::array<int, 2> frozen{0, 0};  // lowest orbitals left out
  std::array<int, 2> occ{0, 0};     // active occupied
  std::array<int, 2> vir{0, 0};     // virtual
};

// frozen: orbitals per spin to freeze (DESIGN.md §8: the lowest by energy).
ActiveSpace active_space(const ScfResult& scf, int frozen);

struct TransformStats {
  double ao_seconds = 0;
  double transform_seconds = 0;
};

// needs: which <vv|vv> integrals the method gets, and so how they are built
// (cc::VvvvNeeds, cc::build_mo_integrals).
// safe_point, if set, is called on every rank at the same points (after each
// round of AO integrals, each quarter and ket transformation, and before each
// block of MO integrals): a collective point where the caller may stop the
// run by throwing. Progress lines go to log every 30 s.
cc::MoIntegrals transform_integrals(tensor::Context& ctx, const Basis& basis, const ScfResult& scf,
                                    const ActiveSpace& space, const par::Log& log, TransformStats* stats = nullptr,
                                    cc::VvvvNeeds needs = {}, const std::function<void()>& safe_point = {});

// Bytes one rank holds at the peak of transform_integrals, from the formula
// of docs/methods.md: the largest of its stages (the quarter
// transformations, the ket transformations, the MO blocks with the <vv|vv>
// integrals `needs` asks for), spread over nranks. Not counted: the program
// itself, its libraries and MPI (about 100 MB per rank).
double transform_peak_bytes(int nbf, const ActiveSpace& space, bool restricted, cc::VvvvNeeds needs, int nranks);

// The AO integrals (mu nu|lambda sigma) as a tensor [N,N,N,N] with SY(mu nu)
// and SY(lambda sigma), computed by the shell quartets of this rank's share
// and sent to their owners in rounds of about `batch` values per rank (the
// default, 4M values, keeps that buffer near 250 MB).
inline constexpr std::size_t kAoBatch = std::size_t{1} << 22;
// round_done(fraction of this rank's share done) is called on every rank
// after each round, at the same points.
tensor::Tensor ao_integrals(tensor::Context& ctx, const Basis& basis, std::size_t batch = kAoBatch,
                            const std::function<void(double)>& round_done = {});

}  // namespace cyclocc::chem
