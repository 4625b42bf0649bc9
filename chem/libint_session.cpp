#include "chem/libint_session.hpp"

#include <libint2.hpp>
#include <stdexcept>

namespace cyclocc::chem {

LibintSession::LibintSession() {
  if (libint2::initialized())
    throw std::logic_error("libint2 is already initialized: create one LibintSession per process");
  libint2::initialize();
}

LibintSession::~LibintSession() { libint2::finalize(); }

}  // namespace cyclocc::chem
