// The tokenizer's normalizers one by one (Unicode normalization forms,
// lowercase, sequences) with what Hugging Face's tokenizers gives for the same
// text, and the Qwen-style fixtures that use them (tools/llm/tokenizer_cases.py;
// tokenizer_test.cpp compares those on many texts).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "llm/text_pipeline.h"
#include "llm/tokenizer.h"
#include "llm/tokenizer_json.h"

namespace kiln::llm::tokenizer_normalizer_test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

const std::filesystem::path kFixtureDir = std::filesystem::path(KILN_SOURCE_DIR) / "tests/fixtures/tokenizer";

// `text` through the normalizer tokenizer.json's `normalizer` describes.
std::string normalized(const json& normalizer, std::string text) {
  const std::string file = "tokenizer.json";
  make_normalizer(JsonField(normalizer, "normalizer", file))->normalize(text);
  return text;
}

// `text` through the normalizer of type `type` (one without options).
std::string normalized_by(const std::string& type, const std::string& text) {
  return normalized(json{{"type", type}}, text);
}

struct FormCase {
  const char* form;
  std::string text, expected;  // expected: tokenizers' normalize_str
};

TEST(TokenizerNormalizerTest, UnicodeFormsNormalizeAsTokenizersDoes) {
  const std::vector<FormCase> cases = {
      {"NFC", "e\u0301", "\u00e9"},
      {"NFC", "a\u0323\u0302 a\u0302\u0323", "\u1ead \u1ead"},  // marks put in canonical order, then composed
      {"NFC", "\u212b\u2126", "\u00c5\u03a9"},                  // the Angstrom and Ohm signs are singletons
      {"NFC", "\ufb01\u2460", "\ufb01\u2460"},                  // compatibility characters stay
      {"NFC", "\u0958", "\u0915\u093c"},                        // excluded from composition
      {"NFC", "\u1100\u1161\u11a8", "\uac01"},                  // leading, vowel and trailing jamo
      {"NFC", std::string("a\0e\u0301", 5), std::string("a\0\u00e9", 4)},
      {"NFD", "\u00e9", "e\u0301"},
      {"NFD", "\uac01", "\u1100\u1161\u11a8"},
      {"NFD", "\u1e69", "s\u0323\u0307"},
      {"NFD", "\uf900", "\u8c48"},
      {"NFKC", "\ufb01\u2460\uff21\u00b2\u00a0\u2026", "fi1A2 ..."},
      {"NFKC", "\u1e9b\u0323", "\u1e69"},
      {"NFKD", "\u1e9b\u0323", "s\u0323\u0307"},
      {"NFKD", "\ufb03", "ffi"},
      {"NFKC", "plain ASCII stays", "plain ASCII stays"},
      {"NFC", "", ""},
  };
  for (const FormCase& c : cases) EXPECT_EQ(normalized_by(c.form, c.text), c.expected) << c.form << " of " << c.text;
}

// utf8proc 2.8 composes 가 with U+11A7, which Unicode (and tokenizers) leave apart.
TEST(TokenizerNormalizerTest, ASyllableAndJamoOYaeStayApart) {
  for (const char* form : {"NFC", "NFKC"}) {
    EXPECT_EQ(normalized_by(form, "\uac00\u11a7"), "\uac00\u11a7") << form;
    EXPECT_EQ(normalized_by(form, "\u11a7\u1100\u1161\u11a7 e\u0301\u11a7\u11a7"), "\u11a7\uac00\u11a7 \u00e9\u11a7\u11a7")
        << form;
  }
  EXPECT_EQ(normalized_by("NFD", "\uac00\u11a7"), "\u1100\u1161\u11a7");
}

TEST(TokenizerNormalizerTest, LowercaseMapsEachCharacterAlone) {
  // İ becomes two characters; a final Σ is σ, with no look at its context.
  EXPECT_EQ(normalized_by("Lowercase", "\u0130\u03a3\u01c5\u1e9eABC \u039f\u0394\u039f\u03a3"),
            "i\u0307\u03c3\u01c6\u00dfabc \u03bf\u03b4\u03bf\u03c3");
}

TEST(TokenizerNormalizerTest, ASequenceRunsItsStepsInOrder) {
  const json acute_removed = {{"type", "Replace"}, {"pattern", {{"String", "\u0301"}}}, {"content", ""}};
  const json nfd_first = {{"type", "Sequence"}, {"normalizers", {{{"type", "NFD"}}, acute_removed}}};
  const json replace_first = {{"type", "Sequence"}, {"normalizers", {acute_removed, {{"type", "NFD"}}}}};
  EXPECT_EQ(normalized(nfd_first, "caf\u00e9"), "cafe");
  EXPECT_EQ(normalized(replace_first, "caf\u00e9"), "cafe\u0301");
}

// What tokenizers' NFC normalizer was refused for before, and what is refused still.
TEST(TokenizerNormalizerTest, NormalizersKilnLacksAreRefusedWithTheirPath) {
  json document = json::parse(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}})");
  const auto load_error = [&](const json& normalizer) {
    document["normalizer"] = normalizer;
    try {
      static_cast<void>(Tokenizer::from_json(document.dump()));
    } catch (const TokenizerError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  for (const char* form : {"NFC", "NFD", "NFKC", "NFKD", "Lowercase"}) {
    EXPECT_EQ(load_error({{"type", form}}), "no error") << form;
  }
  EXPECT_EQ(load_error({{"type", "Sequence"},
                        {"normalizers", {{{"type", "NFKC"}}, {{"type", "Precompiled"}, {"precompiled_charsmap", ""}}}}}),
            "tokenizer.json: normalizer.normalizers[1]: normalizer 'Precompiled' is not supported (Kiln implements "
            "Sequence, Prepend, Replace, Strip, ByteLevel, NFC, NFD, NFKC, NFKD, Lowercase)");
  for (const char* type : {"StripAccents", "BertNormalizer", "Nmt"}) {
    EXPECT_THAT(load_error({{"type", type}}),
                HasSubstr("tokenizer.json: normalizer: normalizer '" + std::string(type) + "' is not supported"));
  }
}

// qwen_nfc.json's added token "cafe\u0301" is normalized (matched in NFC text).
TEST(TokenizerNormalizerTest, ANormalizedAddedTokenIsFoundInEitherSpelling) {
  const Tokenizer tokenizer = Tokenizer::from_file(kFixtureDir / "qwen_nfc.json");
  const auto cafe = tokenizer.token_id("cafe\u0301");
  ASSERT_TRUE(cafe.has_value());
  EXPECT_EQ(tokenizer.token(*cafe), "caf\u00e9");  // the spelling it is matched and decoded as
  EXPECT_EQ(tokenizer.encode("caf\u00e9 cafe\u0301"), (std::vector<int32_t>{*cafe, *tokenizer.token_id("Ġ"), *cafe}));
  // Qwen 3's <think> is an added token that is not special: decoding keeps it.
  const std::vector<int32_t> ids = tokenizer.encode("<think>x</think><|im_end|>");
  EXPECT_EQ(ids.front(), *tokenizer.token_id("<think>"));
  EXPECT_EQ(tokenizer.decode(ids, /*skip_special_tokens=*/true), "<think>x</think>");
}

// qwen_tiny.json fits tools/llm/export.py's tiny models (256 ids) and still
// spells any text: every byte UTF-8 uses has its token.
TEST(TokenizerNormalizerTest, TheTinyQwenStyleTokenizerSpellsAnyText) {
  const Tokenizer tokenizer = Tokenizer::from_file(kFixtureDir / "qwen_tiny.json");
  EXPECT_EQ(tokenizer.vocab_size(), 256u);
  EXPECT_EQ(tokenizer.token_id("<|im_end|>"), 2);
  const std::string text =
      "Cafe\u0301 \u4f60\u597d \U0001f44b\U0001f3fd " + std::string("\0\x7f", 2) + "\u0080 \U0010fffd <|im_start|>";
  EXPECT_EQ(tokenizer.decode(tokenizer.encode(text)), normalized_by("NFC", text));
}

}  // namespace
}  // namespace kiln::llm::tokenizer_normalizer_test
