// cyclocc_input_reference: prints the input reference generated from the
// schema (input/schema.cpp), or with --update README.md rewrites the text
// between README's input-reference markers.
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "input/schema.hpp"

namespace {

int update(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << path << ": cannot be read\n";
    return 1;
  }
  const std::string readme{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const auto updated =
      cyclocc::input::replace_marked_reference(readme, cyclocc::input::input_reference_markdown());
  if (!updated) {
    std::cerr << path << ": no " << cyclocc::input::kReferenceBegin << " ... "
              << cyclocc::input::kReferenceEnd << " markers\n";
    return 1;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << *updated;
  if (!out) {
    std::cerr << path << ": cannot be written\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string usage = "usage: cyclocc_input_reference [--update README.md]\n";
  if (argc == 1) {
    std::cout << cyclocc::input::input_reference_markdown();
    return 0;
  }
  if (argc == 3 && std::string(argv[1]) == "--update") return update(argv[2]);
  std::cerr << usage;
  return 2;
}
