// Shared helpers of the input tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "input/input.hpp"

namespace cyclocc::input::test {

inline std::string data_dir() { return std::string(CYCLOCC_SOURCE_DIR) + "/tests/input/data"; }

// A valid water molecule (angstrom) to build inputs from.
inline const std::string kWater =
    "molecule:\n"
    "  geometry: |\n"
    "    O  0.000000  0.000000  0.117300\n"
    "    H  0.000000  0.757200 -0.469200\n"
    "    H  0.000000 -0.757200 -0.469200\n"
    "basis: cc-pvdz\n";

// The message of the InputError that parsing `text` throws ("" and a test
// failure if it throws nothing). Every message must be a single line.
inline std::string error_of(const std::string& text, const std::string& path = "t.yaml") {
  try {
    parse_input_text(text, path);
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    return message;
  }
  ADD_FAILURE() << "no InputError for:\n" << text;
  return "";
}

// Expects an InputError that starts with `start` ("t.yaml:7: scf.diis: ") and
// contains `detail`.
#define EXPECT_INPUT_ERROR(text, start, detail)                              \
  do {                                                                       \
    const std::string message_ = ::cyclocc::input::test::error_of(text);     \
    EXPECT_EQ(message_.rfind(start, 0), 0u) << "message: " << message_;      \
    EXPECT_NE(message_.find(detail), std::string::npos) << "message: " << message_; \
  } while (0)

}  // namespace cyclocc::input::test
