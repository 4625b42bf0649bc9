// RAII owner of libint2's process-wide state: libint2::initialize() in the
// constructor, libint2::finalize() in the destructor. The program creates
// exactly one, in main(), before any integral is computed (tests do the same
// through a GoogleTest environment). Creating a second while one is alive
// throws, so "once per process" is enforced rather than hoped for.
#pragma once

namespace cyclocc::chem {

class LibintSession {
 public:
  LibintSession();
  ~LibintSession();
  LibintSession(const LibintSession&) = delete;
  LibintSession& operator=(const LibintSession&) = delete;
};

}  // namespace cyclocc::chem
