// The hand-written JSON emitter: escaping, number formatting, structure.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "app/json.hpp"

using cyclocc::app::json::format_double;
using cyclocc::app::json::quote;
using cyclocc::app::json::Value;

TEST(Json, QuoteEscapesSpecialCharacters) {
  EXPECT_EQ(quote("plain"), "\"plain\"");
  EXPECT_EQ(quote("a\"b"), "\"a\\\"b\"");
  EXPECT_EQ(quote("back\\slash"), "\"back\\\\slash\"");
  EXPECT_EQ(quote("line\nbreak\ttab\r"), "\"line\\nbreak\\ttab\\r\"");
  EXPECT_EQ(quote(std::string("nul\x01" "x")), "\"nul\\u0001x\"");
  EXPECT_EQ(quote("\xc3\xa5ngstr\xc3\xb6m"), "\"\xc3\xa5ngstr\xc3\xb6m\"");  // UTF-8 passes through
}

TEST(Json, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  // Three- and four-byte sequences pass through: U+20AC, U+1F600.
  EXPECT_EQ(quote("\xe2\x82\xac \xf0\x9f\x98\x80"), "\"\xe2\x82\xac \xf0\x9f\x98\x80\"");
  // Stray bytes (a Latin-1 file, a BOM of UTF-16), a cut sequence, an overlong
  // form and a surrogate do not.
  EXPECT_EQ(quote("0.7\xff\xfe"), "\"0.7\xef\xbf\xbd" "\xef\xbf\xbd" "\"");
  EXPECT_EQ(quote("\xe5ngstr\xf6m"), "\"\xef\xbf\xbd" "ngstr\xef\xbf\xbd" "m\"");
  EXPECT_EQ(quote("cut \xe2\x82"), "\"cut \xef\xbf\xbd" "\xef\xbf\xbd" "\"");
  EXPECT_EQ(quote("\xc0\xaf"), "\"\xef\xbf\xbd" "\xef\xbf\xbd" "\"");
  EXPECT_EQ(quote("\xed\xa0\x80"), "\"\xef\xbf\xbd" "\xef\xbf\xbd" "\xef\xbf\xbd" "\"");
  // The edges: U+10FFFF passes; overlong three- and four-byte forms, code
  // points above U+10FFFF and F5 do not (each byte replaced).
  EXPECT_EQ(quote("\xf4\x8f\xbf\xbf"), "\"\xf4\x8f\xbf\xbf\"");
  const std::string bad[] = {"\xe0\x9f\xbf", "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80"};
  for (const std::string& b : bad) {
    std::string replaced;
    for (std::size_t i = 0; i < b.size(); ++i) replaced += "\xef\xbf\xbd";
    EXPECT_EQ(quote(b), "\"" + replaced + "\"") << b.size();
  }
}

TEST(Json, DoublesRoundTripWith17Digits) {
  for (double x : {0.1, -76.02677205339259, 9.18953376263822, 1e-300, -2.5e17, 1.0 / 3.0,
                   std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max()}) {
    const std::string s = format_double(x);
    EXPECT_EQ(std::strtod(s.c_str(), nullptr), x) << s;
  }
  EXPECT_EQ(format_double(0.1), "0.10000000000000001");
  EXPECT_EQ(format_double(2.0), "2.0");          // stays a floating-point number
  EXPECT_EQ(format_double(-0.0), "-0.0");
  EXPECT_EQ(format_double(1e20), "1e+20");
  EXPECT_EQ(format_double(std::nan("")), "null");
  EXPECT_EQ(format_double(std::numeric_limits<double>::infinity()), "null");
}

TEST(Json, ObjectsKeepInsertionOrderAndReplaceInPlace) {
  Value v = Value::object();
  v.set("b", 1);
  v.set("a", 2);
  v.set("b", 3);
  EXPECT_EQ(v.dump(), "{\n  \"b\": 3,\n  \"a\": 2\n}\n");
  ASSERT_NE(v.find("a"), nullptr);
  EXPECT_EQ(v.find("a")->number(), 2.0);
  EXPECT_EQ(v.find("missing"), nullptr);
}

TEST(Json, NestedStructureParsesBack) {
  Value v = Value::object();
  v.set("null", Value());
  v.set("flag", false);
  v.set("n", std::int64_t{-12});
  v.set("x", -76.02677205339259);
  v.set("text", "say \"hi\"\n");
  v.set("list", Value::array_of(std::vector<double>{1.5, -2.25}));
  v.set("names", Value::array_of(std::vector<std::string>{"O", "H"}));
  Value& inner = v.set("inner", Value::object());
  inner.set("empty_list", Value::array());
  inner.set("empty_object", Value::object());
  Value& objects = v.set("objects", Value::array());
  objects.push_back(Value::object()).set("k", 1);

  const YAML::Node n = YAML::Load(v.dump());
  EXPECT_TRUE(n["null"].IsNull());
  EXPECT_FALSE(n["flag"].as<bool>());
  EXPECT_EQ(n["n"].as<int>(), -12);
  EXPECT_EQ(n["x"].as<double>(), -76.02677205339259);
  EXPECT_EQ(n["text"].as<std::string>(), "say \"hi\"\n");
  ASSERT_EQ(n["list"].size(), 2u);
  EXPECT_EQ(n["list"][1].as<double>(), -2.25);
  EXPECT_EQ(n["names"][0].as<std::string>(), "O");
  EXPECT_EQ(n["inner"]["empty_list"].size(), 0u);
  EXPECT_TRUE(n["inner"]["empty_object"].IsMap());
  EXPECT_EQ(n["objects"][0]["k"].as<int>(), 1);
}

TEST(Json, WrongKindIsALogicError) {
  Value a = Value::array();
  EXPECT_THROW(a.set("k", 1), std::logic_error);
  Value o = Value::object();
  EXPECT_THROW(o.push_back(1), std::logic_error);
}
