// The tokenizer against Hugging Face's tokenizers: the fixture's cases
// (tests/fixtures/tokenizer, written by tools/llm/tokenizer_cases.py) encode,
// decode and stream as tokenizers does; bad files and bad ids get errors that
// say what was wrong. TokenizerExternalTest runs the same checks on the cases
// tools/llm/check_tokenizer.py writes for a real model's tokenizer.json.
#include "llm/tokenizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/sweep.h"

namespace kiln::llm::tokenizer_test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

const std::filesystem::path kFixtureDir = std::filesystem::path(KILN_SOURCE_DIR) / "tests/fixtures/tokenizer";

std::string read_text(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(file) << path;
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

json read_json(const std::filesystem::path& path) { return json::parse(read_text(path)); }

// An entry of cases.json: the tokenizer file with the entry's patch (JSON
// pointer -> value) applied.
Tokenizer load_entry(const std::filesystem::path& dir, const json& entry) {
  json document = read_json(dir / entry.at("file").get<std::string>());
  for (const auto& [pointer, value] : entry.at("patch").items()) document[json::json_pointer(pointer)] = value;
  return Tokenizer::from_json(document.dump(), entry.at("name").get<std::string>());
}

std::string show(const std::vector<int32_t>& ids) {
  std::string text = "[";
  for (size_t i = 0; i < ids.size(); ++i) text += (i ? "," : "") + std::to_string(ids[i]);
  return text + "]";
}

// The chunks a TokenStream returns for `ids` (empty ones left out), then
// what finish() returns.
std::pair<std::vector<std::string>, std::string> stream(const Tokenizer& tokenizer, const std::vector<int32_t>& ids,
                                                        bool skip_special_tokens) {
  TokenStream token_stream(tokenizer, skip_special_tokens);
  std::vector<std::string> chunks;
  for (const int32_t id : ids) {
    if (std::string chunk = token_stream.push(id); !chunk.empty()) chunks.push_back(std::move(chunk));
  }
  return {chunks, token_stream.finish()};
}

std::string joined(const std::vector<std::string>& chunks, const std::string& rest) {
  std::string text;
  for (const std::string& chunk : chunks) text += chunk;
  return text + rest;
}

// How many checks of one cases.json entry agree with tokenizers, and a line
// for each that does not.
struct Agreement {
  size_t encodes = 0, encodes_equal = 0;
  size_t decodes = 0, decodes_equal = 0;
  size_t streams = 0, streams_equal = 0;
  std::vector<std::string> disagreements;

  void count(size_t& checked, size_t& equal, bool agrees, const std::string& what) {
    ++checked;
    if (agrees) {
      ++equal;
    } else {
      disagreements.push_back(what);
    }
  }
};

// The stream of `ids` gives tokenizers' chunks (when the case has them)
// and, with finish(), the whole decode. (Not when the whole decode does not
// begin with the chunks: a run of byte tokens that stops being UTF-8 turns
// into U+FFFDs as a whole, after its first character was returned.)
void check_stream(const Tokenizer& tokenizer, const std::vector<int32_t>& ids, bool skip, const json* expected_chunks,
                  const std::string& whole, const std::string& label, Agreement& agreement) {
  const auto [chunks, rest] = stream(tokenizer, ids, skip);
  bool agrees = true;
  if (expected_chunks != nullptr) agrees = chunks == expected_chunks->get<std::vector<std::string>>();
  if (whole.starts_with(joined(chunks, ""))) agrees = agrees && joined(chunks, rest) == whole;
  agreement.count(agreement.streams, agreement.streams_equal, agrees,
                  label + ": streaming " + show(ids) + " gave " + json(chunks).dump() + " + " + json(rest).dump());
}

Agreement check_entry(const Tokenizer& tokenizer, const json& entry) {
  Agreement agreement;
  const std::string name = entry.at("name").get<std::string>();
  for (const json& item : entry.at("encode")) {
    const std::string text = item.at("text").get<std::string>();
    const std::string label = name + " " + json(text).dump();
    const auto ids = item.at("ids").get<std::vector<int32_t>>();
    const auto ids_special = item.value("ids_special", ids);
    const std::vector<int32_t> encoded = tokenizer.encode(text);
    const std::vector<int32_t> encoded_special = tokenizer.encode(text, /*add_special_tokens=*/true);
    agreement.count(agreement.encodes, agreement.encodes_equal, encoded == ids,
                    label + ": encode gave " + show(encoded) + ", tokenizers " + show(ids));
    agreement.count(
        agreement.encodes, agreement.encodes_equal, encoded_special == ids_special,
        label + ": encode with special tokens gave " + show(encoded_special) + ", tokenizers " + show(ids_special));
    const std::string decoded = item.value("decoded", text);
    const std::string decoded_skip = item.value("decoded_skip", decoded);
    const std::string ours = tokenizer.decode(ids), ours_skip = tokenizer.decode(ids, /*skip_special_tokens=*/true);
    agreement.count(agreement.decodes, agreement.decodes_equal, ours == decoded,
                    label + ": decode gave " + json(ours).dump() + ", tokenizers " + json(decoded).dump());
    agreement.count(agreement.decodes, agreement.decodes_equal, ours_skip == decoded_skip,
                    label + ": decode skipping special tokens gave " + json(ours_skip).dump() + ", tokenizers " +
                        json(decoded_skip).dump());
    const json* chunks = item.contains("stream") ? &item.at("stream") : nullptr;
    check_stream(tokenizer, ids, false, chunks, decoded, label, agreement);
  }
  for (const json& item : entry.at("decode")) {
    const auto ids = item.at("ids").get<std::vector<int32_t>>();
    const std::string label = name + " " + show(ids);
    const std::string text = item.at("text").get<std::string>(), text_skip = item.at("text_skip").get<std::string>();
    const std::string ours = tokenizer.decode(ids), ours_skip = tokenizer.decode(ids, /*skip_special_tokens=*/true);
    agreement.count(agreement.decodes, agreement.decodes_equal, ours == text,
                    label + ": decode gave " + json(ours).dump() + ", tokenizers " + json(text).dump());
    agreement.count(agreement.decodes, agreement.decodes_equal, ours_skip == text_skip,
                    label + ": decode skipping special tokens gave " + json(ours_skip).dump() + ", tokenizers " +
                        json(text_skip).dump());
    check_stream(tokenizer, ids, false, &item.at("stream"), text, label, agreement);
    check_stream(tokenizer, ids, true, &item.at("stream_skip"), text_skip, label + " skipping", agreement);
  }
  return agreement;
}

std::string summary(const std::string& name, const Agreement& agreement) {
  std::ostringstream out;
  out << name << ": encode " << agreement.encodes_equal << "/" << agreement.encodes << ", decode "
      << agreement.decodes_equal << "/" << agreement.decodes << ", stream " << agreement.streams_equal << "/"
      << agreement.streams << " agree with tokenizers";
  return out.str();
}

// Checks every entry of a cases.json; prints the agreement of each.
void check_cases_file(const std::filesystem::path& cases_path, size_t shown_disagreements) {
  const json cases = read_json(cases_path);
  ASSERT_FALSE(cases.at("tokenizers").empty());
  for (const json& entry : cases.at("tokenizers")) {
    const Tokenizer tokenizer = load_entry(cases_path.parent_path(), entry);
    const Agreement agreement = check_entry(tokenizer, entry);
    std::printf("%s\n", summary(entry.at("name").get<std::string>(), agreement).c_str());
    EXPECT_GT(agreement.encodes, 0u);
    for (size_t i = 0; i < agreement.disagreements.size() && i < shown_disagreements; ++i) {
      ADD_FAILURE() << agreement.disagreements[i];
    }
    EXPECT_TRUE(agreement.disagreements.empty()) << agreement.disagreements.size() << " disagreements";
  }
}

TEST(TokenizerTest, EncodesDecodesAndStreamsAsHuggingFaceTokenizersDoes) {
  check_cases_file(kFixtureDir / "cases.json", 50);
}

// tools/llm/check_tokenizer.py runs this with KILN_TOKENIZER_CASES set to
// the cases it wrote for a real tokenizer.json.
TEST(TokenizerExternalTest, AgreesWithHuggingFaceTokenizersOnTheGivenCases) {
  const char* cases = std::getenv("KILN_TOKENIZER_CASES");
  if (cases == nullptr) GTEST_SKIP() << "set KILN_TOKENIZER_CASES (tools/llm/check_tokenizer.py does)";
  check_cases_file(cases, 30);
}

Tokenizer fixture(const std::string& file) { return Tokenizer::from_file(kFixtureDir / file); }

TEST(TokenizerTest, LooksUpTokensAndIds) {
  const Tokenizer tokenizer = fixture("split_bytelevel.json");
  EXPECT_EQ(tokenizer.vocab_size(), 704u);
  EXPECT_EQ(tokenizer.token_id("<|im_start|>"), 2);
  EXPECT_EQ(tokenizer.token(2), "<|im_start|>");
  EXPECT_TRUE(tokenizer.is_special(2));
  EXPECT_FALSE(tokenizer.is_special(*tokenizer.token_id("kiln")));  // an added token that is not special
  EXPECT_EQ(tokenizer.token_id("Ġ"), tokenizer.encode(" ").at(0));
  EXPECT_EQ(tokenizer.token_id("not a token"), std::nullopt);
  ASSERT_EQ(tokenizer.added_tokens().size(), 7u);
  EXPECT_EQ(tokenizer.added_tokens()[4].content, "<mask>");
  EXPECT_TRUE(tokenizer.added_tokens()[4].lstrip);
  EXPECT_EQ(tokenizer.encode("", /*add_special_tokens=*/true), std::vector<int32_t>{0});
}

// A character split over several ids is held back until its last byte comes.
TEST(TokenizerTest, StreamingHoldsBackACharacterUntilItsLastByte) {
  const Tokenizer tokenizer = fixture("gpt2_digits.json");
  // Each byte of "€" (E2 82 AC) as its byte-level token: "â", "Ĥ", "¬".
  const std::vector<int32_t> ids = {*tokenizer.token_id("â"), *tokenizer.token_id("Ĥ"), *tokenizer.token_id("¬"),
                                    *tokenizer.token_id("!")};
  TokenStream token_stream(tokenizer);
  EXPECT_EQ(token_stream.push(ids[0]), "");
  EXPECT_EQ(token_stream.push(ids[1]), "");
  EXPECT_EQ(token_stream.push(ids[2]), "€");
  EXPECT_EQ(token_stream.push(ids[3]), "!");
  EXPECT_EQ(token_stream.finish(), "");
  // Cut off, the incomplete character comes out of finish() as decode() shows it.
  EXPECT_EQ(token_stream.push(ids[0]), "");
  EXPECT_EQ(token_stream.push(ids[1]), "");
  EXPECT_EQ(token_stream.finish(), "\uFFFD");
  EXPECT_EQ(tokenizer.decode(std::vector<int32_t>{ids[0], ids[1]}), "\uFFFD");
}

TEST(TokenizerTest, StreamingEveryFixtureTextGivesItsWholeDecode) {
  for (const char* file : {"split_bytelevel.json", "gpt2_digits.json", "metaspace_fallback.json"}) {
    const Tokenizer tokenizer = fixture(file);
    const json cases = read_json(kFixtureDir / "cases.json");
    for (const json& entry : cases.at("tokenizers")) {
      for (const json& item : entry.at("encode")) {
        const std::vector<int32_t> ids = tokenizer.encode(item.at("text").get<std::string>(), true);
        for (const bool skip : {false, true}) {
          const auto [chunks, rest] = stream(tokenizer, ids, skip);
          EXPECT_EQ(joined(chunks, rest), tokenizer.decode(ids, skip)) << file << " " << item.at("text");
        }
      }
    }
  }
}

// The message of the TokenizerError that reading `json_text` throws.
std::string load_error(const std::string& json_text, const std::string& name = "tokenizer.json") {
  try {
    Tokenizer::from_json(json_text, name);
  } catch (const TokenizerError& error) {
    return error.what();
  }
  return "no error";
}

// The fixture's split_bytelevel.json with `pointer` set to `value`.
std::string patched(const std::string& pointer, const json& value) {
  json document = read_json(kFixtureDir / "split_bytelevel.json");
  document[json::json_pointer(pointer)] = value;
  return document.dump();
}

TEST(TokenizerTest, AFileThatIsNotATokenizerIsRefusedClearly) {
  EXPECT_EQ(load_error("{\"model\": [1, 2", "bad.json"),
            "bad.json: not JSON at byte 16 (parse error at line 1, column 16: syntax error while parsing array - "
            "unexpected end of input; expected ']')");
  EXPECT_THAT(load_error(""), HasSubstr("tokenizer.json: not JSON at byte 1"));
  EXPECT_EQ(load_error("[1, 2, 3]"), "tokenizer.json: not a Hugging Face tokenizer (no \"model\" object)");
  EXPECT_EQ(load_error("{\"vocab\": {}}"), "tokenizer.json: not a Hugging Face tokenizer (no \"model\" object)");
  EXPECT_THAT(load_error("\x89PNG\r\n"), HasSubstr("not JSON at byte 1"));
  try {
    Tokenizer::from_file(kFixtureDir / "no-such-tokenizer.json");
    ADD_FAILURE() << "no error";
  } catch (const TokenizerError& error) {
    EXPECT_THAT(error.what(), HasSubstr("no-such-tokenizer.json: cannot be read (No such file or directory)"));
  }
}

TEST(TokenizerTest, WhatKilnDoesNotImplementIsRefusedByName) {
  EXPECT_EQ(load_error(R"({"model": {"type": "Unigram", "vocab": [["a", 0.0]]}})"),
            "tokenizer.json: model.type: model type 'Unigram' is not supported (Kiln reads BPE models only)");
  EXPECT_EQ(load_error(patched("/pre_tokenizer", {{"type", "Whitespace"}})),
            "tokenizer.json: pre_tokenizer: pre-tokenizer 'Whitespace' is not supported (Kiln implements Sequence, "
            "Split, ByteLevel, Digits, Metaspace)");
  EXPECT_THAT(load_error(patched("/pre_tokenizer/pretokenizers/1", {{"type", "UnicodeScripts"}})),
              HasSubstr("tokenizer.json: pre_tokenizer.pretokenizers[1]: pre-tokenizer 'UnicodeScripts' is not "
                        "supported"));
  EXPECT_THAT(load_error(patched("/normalizer", {{"type", "Precompiled"}, {"precompiled_charsmap", "AA=="}})),
              HasSubstr("tokenizer.json: normalizer: normalizer 'Precompiled' is not supported (Kiln implements "));
  EXPECT_THAT(load_error(patched("/decoder", {{"type", "WordPiece"}, {"prefix", "##"}})),
              HasSubstr("tokenizer.json: decoder: decoder 'WordPiece' is not supported"));
  EXPECT_THAT(load_error(patched("/post_processor", {{"type", "Mystery"}})),
              HasSubstr("tokenizer.json: post_processor: post-processor 'Mystery' is not supported"));
  EXPECT_EQ(load_error(patched("/model/dropout", 0.1)),
            "tokenizer.json: model.dropout: BPE dropout makes encoding random; Kiln encodes without it (set it to "
            "null)");
  EXPECT_EQ(load_error(patched("/version", "2.0")),
            "tokenizer.json: version: version '2.0' is not supported (Kiln reads version 1.0)");
}

TEST(TokenizerTest, InconsistentFilesAreRefusedWithWhereAndWhy) {
  EXPECT_EQ(load_error(patched("/model/merges/17", {"Ġ", "zzz"})),
            "tokenizer.json: model.merges[17]: token 'zzz' is not in the vocabulary");
  EXPECT_EQ(load_error(patched("/model/merges/3", "a b c")),
            "tokenizer.json: model.merges[3]: expected two tokens separated by one space, got 'a b c'");
  EXPECT_EQ(load_error(patched("/model/vocab/Ġ", -4)),
            "tokenizer.json: model.vocab: token 'Ġ' has id -4, expected an integer in [0, 16777215]");
  EXPECT_THAT(load_error(patched("/pre_tokenizer/pretokenizers/0/pattern", {{"Regex", "(unclosed"}})),
              HasSubstr("tokenizer.json: pre_tokenizer.pretokenizers[0].pattern.Regex: the pattern '(unclosed' does "
                        "not compile: missing closing parenthesis at offset 9"));
  EXPECT_EQ(load_error(patched("/pre_tokenizer/pretokenizers/0/behavior", "Sideways")),
            "tokenizer.json: pre_tokenizer.pretokenizers[0].behavior: unknown split behavior 'Sideways'");
  EXPECT_EQ(load_error(patched("/added_tokens/2/content", 7)),
            "tokenizer.json: added_tokens[2].content: expected a string, got '7'");
  EXPECT_EQ(load_error(patched("/post_processor/processors/1/single/0/SpecialToken/id", "<nope>")),
            "tokenizer.json: post_processor.processors[1].single[0].SpecialToken: special token '<nope>' is not in "
            "special_tokens");
}

// Whatever a field of a file holds, reading it throws a TokenizerError or succeeds.
TEST(TokenizerTest, EveryFieldWithAWrongValueIsRefusedOrReadNeverACrash) {
  const json document = read_json(kFixtureDir / "split_bytelevel.json");
  const json flat = document.flatten();
  std::vector<std::string> pointers;
  for (const auto& [pointer, value] : flat.items()) {
    // Of the vocabulary and merges, which are all alike, one of each.
    const bool bulk = pointer.starts_with("/model/vocab/") || pointer.starts_with("/model/merges/");
    if (!bulk || pointer.starts_with("/model/merges/0/") || pointer == "/model/vocab/Ġ") pointers.push_back(pointer);
  }
  ASSERT_GT(pointers.size(), 60u);
  json broken = document;
  size_t refused = 0;
  for (size_t index = 0; index < pointers.size(); ++index) {
    if (!testing::sweep_includes(index, pointers.size())) continue;
    json& field = broken[json::json_pointer(pointers[index])];
    const json original = field;
    // Null, a value of another kind, and for numbers one out of range.
    std::vector<json> wrong_values = {nullptr, original.is_string() ? json(42) : json("x")};
    if (original.is_number()) wrong_values.push_back(-1);
    for (const json& value : wrong_values) {
      field = value;
      try {
        const Tokenizer tokenizer = Tokenizer::from_json(broken.dump());
        static_cast<void>(tokenizer.decode(tokenizer.encode("Hello <|im_end|> world 123 你好")));
      } catch (const TokenizerError& error) {
        ++refused;
        EXPECT_THAT(error.what(), HasSubstr("tokenizer.json: ")) << pointers[index];
      } catch (const std::exception& error) {
        ADD_FAILURE() << pointers[index] << " = " << value.dump() << ": " << error.what();
      }
    }
    field = original;
  }
  EXPECT_GT(refused, testing::sample_sweeps() ? 0u : pointers.size());
  // Cut short anywhere, a file is not JSON.
  const std::string text = document.dump();
  for (size_t cut = 0; cut < text.size(); cut += 97) {
    EXPECT_THAT(load_error(text.substr(0, cut)), HasSubstr("not JSON at byte")) << cut;
  }
}

TEST(TokenizerTest, BadIdsAndBadTextAreRefused) {
  const Tokenizer tokenizer = fixture("split_bytelevel.json");
  const std::string name = (kFixtureDir / "split_bytelevel.json").string();
  try {
    static_cast<void>(tokenizer.decode(std::vector<int32_t>{5, 704}));
    ADD_FAILURE() << "no error";
  } catch (const TokenizerError& error) {
    EXPECT_EQ(error.what(), name + ": id 704 is not in the vocabulary (of 704 ids)");
  }
  EXPECT_THROW(static_cast<void>(tokenizer.decode(std::vector<int32_t>{-1})), TokenizerError);
  EXPECT_THROW(static_cast<void>(tokenizer.token(100000)), TokenizerError);
  TokenStream token_stream(tokenizer);
  EXPECT_EQ(token_stream.push(*tokenizer.token_id("H")), "H");
  EXPECT_THROW(static_cast<void>(token_stream.push(-7)), TokenizerError);
  EXPECT_EQ(token_stream.push(*tokenizer.token_id("i")), "i");  // the bad id did not stay in the stream
  try {
    static_cast<void>(tokenizer.encode("ok \xC3\x28 not ok"));
    ADD_FAILURE() << "no error";
  } catch (const TokenizerError& error) {
    EXPECT_EQ(error.what(), name + ": cannot encode text that is not UTF-8 (byte 3)");
  }
}

}  // namespace
}  // namespace kiln::llm::tokenizer_test
