#include "chem/basis.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "chem/g94.hpp"

#ifndef CYCLOCC_SOURCE_DIR
#define CYCLOCC_SOURCE_DIR "."
#endif
#ifndef CYCLOCC_BASIS_INSTALL_DIR
#define CYCLOCC_BASIS_INSTALL_DIR ""
#endif

namespace cyclocc::chem {
namespace {

using input::InputError;

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// Up to `count` library names closest to `stem`, for "did you mean" messages.
std::string near_names(const BasisIndex& index, const std::string& stem, std::size_t count) {
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& [name, pure] : index.pure) scored.emplace_back(edit_distance(stem, name), name);
  std::sort(scored.begin(), scored.end());
  std::string out;
  for (std::size_t i = 0; i < scored.size() && i < count; ++i)
    out += (i ? ", " : "") + scored[i].second;
  return out;
}

libint2::Shell make_shell(const RawShell& raw, const std::array<double, 3>& origin, bool pure) {
  libint2::svector<double> alpha(raw.exponents.begin(), raw.exponents.end());
  libint2::svector<double> coeff(raw.coefficients.begin(), raw.coefficients.end());
  // libint2 multiplies the primitive normalisation into the coefficients and
  // normalises the contraction to unity (Shell::renorm).
  return libint2::Shell(alpha, {{raw.l, pure && raw.l >= 2, coeff}}, origin);
}

}  // namespace

std::string basis_library_dir() {
  if (const char* env = std::getenv("CYCLOCC_BASIS_DIR"); env && *env) return env;
  const std::string source = std::string(CYCLOCC_SOURCE_DIR) + "/share/basis";
  const std::string installed = CYCLOCC_BASIS_INSTALL_DIR;
  if (!installed.empty() && !std::filesystem::exists(source + "/index.yaml") &&
      std::filesystem::exists(installed + "/index.yaml"))
    return installed;
  return source;
}

std::string basis_file_stem(const std::string& name) {
  std::string out;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '*') out += 's';
    else if (c == '+') out += 'p';
    else if (c == '(' || c == ')' || c == ',') out += '_';
    else out += static_cast<char>(std::tolower(u));
  }
  return out;
}

namespace {

// A stem the index lacks that ends in the "(d)" or "(d,p)" spelling, written
// as "*" or "**" ("6-31+G(d)" -> 6-31pgs): Psi4 ships 6-31G(d) and 6-31G(d,p)
// files only for some of the sets it also ships as * and **, with the same
// functions.
std::string library_stem(const BasisIndex& index, const std::string& stem) {
  if (index.pure.count(stem)) return stem;
  for (const auto& [parens, stars] : {std::pair<std::string, std::string>{"_d_p_", "ss"}, {"_d_", "s"}}) {
    if (stem.size() > parens.size() && stem.compare(stem.size() - parens.size(), parens.size(), parens) == 0) {
      const std::string other = stem.substr(0, stem.size() - parens.size()) + stars;
      return index.pure.count(other) ? other : stem;
    }
  }
  return stem;
}

}  // namespace

BasisIndex read_basis_index(const std::string& dir) {
  const std::string path = dir + "/index.yaml";
  BasisIndex index;
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw InputError(path + ": cannot read the basis library index (" + e.msg +
                     "); set CYCLOCC_BASIS_DIR to the share/basis folder");
  }
  try {
    for (const auto& kv : root["conventions"]) {
      const auto conv = kv.second.as<std::string>();
      if (conv != "spherical" && conv != "cartesian")
        throw InputError(path + ":" + std::to_string(kv.second.Mark().line + 1) +
                         ": convention must be spherical or cartesian");
      index.pure[kv.first.as<std::string>()] = conv == "spherical";
    }
    for (const auto& kv : root["ecp_elements"]) {
      auto& list = index.ecp_elements[kv.first.as<std::string>()];
      for (const auto& el : kv.second) list.push_back(input::atomic_number(el.as<std::string>()));
    }
  } catch (const YAML::Exception& e) {
    throw InputError(path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return index;
}

Basis make_basis(const G94File& file, const std::vector<input::Atom>& atoms, bool pure,
                 const std::string& label) {
  Basis b;
  b.file = file.path;
  b.pure = pure;
  for (std::size_t a = 0; a < atoms.size(); ++a) {
    const auto it = file.shells.find(atoms[a].Z);
    if (it == file.shells.end())
      throw InputError(label + " has no functions for element " +
                       input::element_symbol(atoms[a].Z) + " (" + file.path + ")");
    for (const auto& raw : it->second) {
      b.shells.push_back(make_shell(raw, atoms[a].xyz, pure));
      b.shell_atom.push_back(static_cast<int>(a));
    }
  }
  for (const auto& s : b.shells) {
    b.shell_offset.push_back(b.nbf);
    b.nbf += static_cast<int>(s.size());
    b.max_l = std::max(b.max_l, static_cast<int>(s.contr[0].l));
    b.max_nprim = std::max(b.max_nprim, static_cast<int>(s.nprim()));
  }
  return b;
}

Basis load_basis(const input::Input& in) {
  const std::string where =
      input::input_error_message(in.path.empty() ? std::string("input") : in.path, in.basis_line, "basis", "");
  if (in.basis_is_file) {
    const G94File file = read_g94(in.basis);
    // A user file without a spherical/cartesian header line defaults to spherical.
    const bool pure = in.puream.value_or(file.pure.value_or(true));
    Basis b = make_basis(file, in.molecule.atoms, pure, where + in.basis);
    b.name = in.basis;
    b.pure_by_default = !in.puream && !file.pure;
    return b;
  }
  const std::string dir = basis_library_dir();
  const BasisIndex index = read_basis_index(dir);
  const std::string stem = library_stem(index, basis_file_stem(in.basis));
  const auto conv = index.pure.find(stem);
  if (conv == index.pure.end())
    throw InputError(where + "'" + in.basis + "' is not in the basis library " + dir +
                     " (near names: " + near_names(index, stem, 4) + ")");
  if (const auto ecp = index.ecp_elements.find(stem); ecp != index.ecp_elements.end()) {
    for (const auto& atom : in.molecule.atoms)
      if (std::count(ecp->second.begin(), ecp->second.end(), atom.Z))
        throw InputError(where + in.basis + " needs an effective core potential for element " +
                         input::element_symbol(atom.Z) + ", which cyclocc does not support");
  }
  const std::string path = dir + "/" + stem + ".g94";
  if (!std::filesystem::exists(path))
    throw InputError(where + "'" + in.basis + "' is listed in " + dir + "/index.yaml but " + path +
                     " is missing");
  const G94File file = read_g94(path);
  Basis b = make_basis(file, in.molecule.atoms, in.puream.value_or(conv->second), where + in.basis);
  b.name = in.basis;
  return b;
}

std::vector<double> shell_data(const Basis& basis) {
  std::vector<double> data;
  for (const libint2::Shell& sh : basis.shells) {
    for (const auto& c : sh.contr) {
      data.push_back(c.l);
      data.push_back(c.pure ? 1 : 0);
      for (double x : c.coeff) data.push_back(x);
    }
    for (double a : sh.alpha) data.push_back(a);
  }
  return data;
}

}  // namespace cyclocc::chem
