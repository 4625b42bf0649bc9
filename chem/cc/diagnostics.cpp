#include "chem/cc/diagnostics.hpp"

#include <Eigen/Dense>
#include <cmath>

namespace cyclocc::cc {

SinglesDiagnostics singles_diagnostics(const Amplitudes& t) {
  const SpinDims& d = t.t1.dims();
  const int electrons = d.occ[0] + d.occ[1];
  SinglesDiagnostics r;
  const double s = t.t1.dot(t.t1);  // over the spin orbitals
  r.t1 = electrons > 0 ? std::sqrt(s / (2.0 * electrons)) : 0.0;
  if (d.restricted && d.occ[0] > 0 && d.vir[0] > 0) {
    const std::vector<double> a = tensor::spatial_block(t.t1).gather_all();  // t_i^a as [a][i]
    const Eigen::Map<const Eigen::MatrixXd> m(a.data(), d.occ[0], d.vir[0]);  // column-major: [i][a]
    r.d1 = Eigen::JacobiSVD<Eigen::MatrixXd>(m).singularValues()(0);
  }
  return r;
}

}  // namespace cyclocc::cc
