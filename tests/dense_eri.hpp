// Slow twin of the AO integral code for tests: every two-electron integral
// (ij|kl) of a basis from every shell quartet, without screening or symmetry.
#pragma once

#include <libint2.hpp>

#include <cstddef>

#include "chem/basis.hpp"

namespace cyclocc::test {

// Calls f(i, j, k, l, (ij|kl)) for every quartet of basis functions
// (needs a live libint2 session).
template <class F>
void for_each_eri(const chem::Basis& b, F&& f) {
  libint2::Engine engine(libint2::Operator::coulomb, b.max_nprim, b.max_l, 0);
  engine.set_precision(0.0);
  const auto& sh = b.shells;
  for (std::size_t s1 = 0; s1 < sh.size(); ++s1)
    for (std::size_t s2 = 0; s2 < sh.size(); ++s2)
      for (std::size_t s3 = 0; s3 < sh.size(); ++s3)
        for (std::size_t s4 = 0; s4 < sh.size(); ++s4) {
          engine.compute(sh[s1], sh[s2], sh[s3], sh[s4]);
          const double* v = engine.results()[0];
          std::size_t n = 0;
          for (std::size_t f1 = 0; f1 < sh[s1].size(); ++f1)
            for (std::size_t f2 = 0; f2 < sh[s2].size(); ++f2)
              for (std::size_t f3 = 0; f3 < sh[s3].size(); ++f3)
                for (std::size_t f4 = 0; f4 < sh[s4].size(); ++f4, ++n)
                  f(b.shell_offset[s1] + f1, b.shell_offset[s2] + f2, b.shell_offset[s3] + f3,
                    b.shell_offset[s4] + f4, v ? v[n] : 0.0);
        }
}

}  // namespace cyclocc::test
