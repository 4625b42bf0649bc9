// The schema: README's input reference is generated from it, and its
// suggestions and ranges behave.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "input/schema.hpp"
#include "tests/input/helpers.hpp"

namespace cyclocc::input::test {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(InputSchema, ReadmeReferenceIsTheGeneratedOne) {
  const std::string readme = read_file(std::string(CYCLOCC_SOURCE_DIR) + "/README.md");
  ASSERT_FALSE(readme.empty()) << "cannot read README.md";
  const auto section = marked_reference(readme);
  ASSERT_TRUE(section.has_value()) << "README.md lacks the input-reference markers";
  EXPECT_EQ(*section, input_reference_markdown())
      << "README.md's input reference is stale: run `cyclocc_input_reference --update README.md`";
}

TEST(InputSchema, ReferenceMentionsEveryKeyWithItsDefault) {
  const std::string md = input_reference_markdown();
  for (const auto& spec : input_schema()) {
    EXPECT_NE(md.find("| `" + std::string(spec.key) + "` |"), std::string::npos) << spec.key;
    if (!spec.default_value.empty()) {
      EXPECT_NE(md.find("`" + std::string(spec.default_value) + "`"), std::string::npos)
          << spec.key;
    }
    for (const auto& choice : spec.choices)
      EXPECT_NE(md.find("`" + std::string(choice) + "`"), std::string::npos) << choice;
  }
  EXPECT_NE(md.find("0.52917721067"), std::string::npos);
}

TEST(InputSchema, ReplaceMarkedReference) {
  const std::string readme = "a\n<!-- input-reference:begin -->\nold\n<!-- input-reference:end -->\nb\n";
  const auto updated = replace_marked_reference(readme, "new\n");
  ASSERT_TRUE(updated.has_value());
  EXPECT_EQ(*updated, "a\n<!-- input-reference:begin -->\nnew\n<!-- input-reference:end -->\nb\n");
  EXPECT_EQ(*marked_reference(*updated), "new\n");
  EXPECT_FALSE(marked_reference("no markers").has_value());
}

TEST(InputSchema, KeysAreUniqueAndSectionsExist) {
  const auto& schema = input_schema();
  for (std::size_t i = 0; i < schema.size(); ++i) {
    for (std::size_t j = i + 1; j < schema.size(); ++j) EXPECT_NE(schema[i].key, schema[j].key);
    const auto dot = schema[i].key.rfind('.');
    if (dot != std::string_view::npos) {
      const KeySpec* parent = find_key(schema[i].key.substr(0, dot));
      ASSERT_NE(parent, nullptr) << schema[i].key;
      EXPECT_EQ(parent->kind, ValueKind::Section);
    }
    EXPECT_FALSE(schema[i].description.empty()) << schema[i].key;
  }
  EXPECT_EQ(keys_in_section("scf"),
            (std::vector<std::string_view>{"reference", "guess", "convergence", "max_iterations",
                                           "diis"}));
}

TEST(InputSchema, SuggestsKeys) {
  EXPECT_EQ(suggest_key("molecule", "multiplicty"), "molecule.multiplicity");
  EXPECT_EQ(suggest_key("cc", "frozencore"), "cc.frozen_core");
  EXPECT_EQ(suggest_key("cc", "frozen-core"), "cc.frozen_core");
  EXPECT_EQ(suggest_key("scf", "iterations"), "scf.max_iterations");
  EXPECT_EQ(suggest_key("", "xyz"), "molecule.xyz");
  EXPECT_EQ(suggest_key("", "diis"), "scf.diis or cc.diis");
  EXPECT_EQ(suggest_key("scf", "temperature"), "");
  EXPECT_EQ(suggest_key("", ""), "");
}

TEST(InputSchema, AllowedValues) {
  EXPECT_EQ(allowed_values(*find_key("scf.convergence")), "> 0");
  EXPECT_EQ(allowed_values(*find_key("cc.diis")), ">= 0");
  EXPECT_EQ(allowed_values(*find_key("checkpoint.interval")), ">= 1");
  EXPECT_EQ(allowed_values(*find_key("molecule.charge")), "any integer");
  EXPECT_EQ(allowed_values(*find_key("cc.method")), "none, mp2, ccsd, ccsd(t), ccsdt");
}

}  // namespace
}  // namespace cyclocc::input::test
