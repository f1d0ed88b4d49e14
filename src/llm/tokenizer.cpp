#include "llm/tokenizer.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>

#include "llm/added_vocabulary.h"
#include "llm/bpe_model.h"
#include "llm/text_pipeline.h"
#include "llm/token_decoders.h"
#include "llm/tokenizer_json.h"
#include "llm/utf8.h"

namespace kiln::llm {

// The ids a post-processor puts around a text's own when special tokens are
// asked for (a member of Tokenizer::Impl, so not in the anonymous namespace).
struct SpecialTokensAround {
  std::vector<int32_t> before, after;
};

namespace {

int32_t read_id(const JsonField& field) {
  const int64_t id = field.integer();
  if (id < 0 || id > INT32_MAX) field.fail("expected an id, got " + std::to_string(id));
  return static_cast<int32_t>(id);
}

// RobertaProcessing's and BertProcessing's [token, id].
int32_t read_token_pair(const JsonField& field) {
  const std::vector<JsonField> pair = field.elements();
  if (pair.size() != 2) field.fail("expected [token, id]");
  return read_id(pair[1]);
}

// TemplateProcessing's `single` template: special tokens around "$A".
SpecialTokensAround read_template(const JsonField& processor) {
  SpecialTokensAround around;
  const JsonField single = processor.at("single");
  const JsonField special_tokens = processor.at("special_tokens");
  bool seen_sequence = false;
  for (const JsonField& piece : single.elements()) {
    if (const auto sequence = piece.find("Sequence")) {
      if (seen_sequence || sequence->at("id").string() != "A") piece.fail("expected the one sequence to be A");
      seen_sequence = true;
    } else if (const auto special = piece.find("SpecialToken")) {
      const std::string name = special->at("id").string();
      const auto entry = special_tokens.find(name);
      if (!entry) special->fail("special token " + quote_text(name) + " is not in special_tokens");
      for (const JsonField& id : entry->at("ids").elements()) {
        (seen_sequence ? around.after : around.before).push_back(read_id(id));
      }
    } else {
      piece.fail("expected {\"Sequence\": ...} or {\"SpecialToken\": ...}");
    }
  }
  if (!seen_sequence) single.fail("the template has no sequence ($A)");
  return around;
}

// Adds what `processor` puts around the ids (outside what earlier ones put).
void read_post_processor(const JsonField& processor, SpecialTokensAround& around) {
  if (processor.value().is_null()) return;
  const std::string type = processor.at("type").string();
  if (type == "ByteLevel") return;  // it only trims offsets
  if (type == "Sequence") {
    for (const JsonField& step : processor.at("processors").elements()) read_post_processor(step, around);
    return;
  }
  SpecialTokensAround added;
  if (type == "TemplateProcessing") {
    added = read_template(processor);
  } else if (type == "RobertaProcessing" || type == "BertProcessing") {
    added.before.push_back(read_token_pair(processor.at("cls")));
    added.after.push_back(read_token_pair(processor.at("sep")));
  } else {
    processor.fail("post-processor '" + type +
                   "' is not supported (Kiln implements TemplateProcessing, ByteLevel, RobertaProcessing, "
                   "BertProcessing, Sequence)");
  }
  around.before.insert(around.before.begin(), added.before.begin(), added.before.end());
  around.after.insert(around.after.end(), added.after.begin(), added.after.end());
}

// Where `text` stops sharing `prefix`, at a character boundary.
size_t shared_prefix(std::string_view text, std::string_view prefix) {
  size_t end = 0;
  while (end < text.size() && end < prefix.size() && text[end] == prefix[end]) ++end;
  while (end > 0 && end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return end;
}

}  // namespace

struct Tokenizer::Impl {
  std::string name;
  std::unique_ptr<Normalizer> normalizer;
  std::unique_ptr<PreTokenizer> pre_tokenizer;
  std::unique_ptr<BpeModel> model;
  std::unique_ptr<Decoder> decoder;
  SpecialTokensAround special_tokens;
  std::vector<AddedToken> added;
  std::vector<std::string> added_spelling;  // by index in `added`: content, normalized if it is matched so
  std::unordered_map<int32_t, size_t> added_by_id;
  StringMap<int32_t> added_ids;          // content -> id
  AddedTokenMatcher raw_matcher;         // tokens found in the raw text
  AddedTokenMatcher normalized_matcher;  // tokens found in normalized text
  size_t vocab_size = 0;                 // one past the largest id

  void read_added_tokens(const JsonField& root);
  void count_ids();
  void encode_normalized(std::string_view text, bool starts_input, std::vector<int32_t>& ids) const;
  [[noreturn]] void unknown_id(int32_t id) const;
};

void Tokenizer::Impl::read_added_tokens(const JsonField& root) {
  const auto entries = root.find("added_tokens");
  if (!entries) return;
  std::vector<AddedTokenMatcher::Pattern> raw_patterns, normalized_patterns;
  for (const JsonField& entry : entries->elements()) {
    AddedToken token;
    token.content = entry.at("content").string();
    if (token.content.empty()) continue;  // tokenizers ignores them too
    // A token the vocabulary has keeps the vocabulary's id, as in tokenizers.
    token.id = model->token_id(token.content).value_or(read_id(entry.at("id")));
    token.special = entry.bool_or("special", false);
    token.single_word = entry.bool_or("single_word", false);
    token.lstrip = entry.bool_or("lstrip", false);
    token.rstrip = entry.bool_or("rstrip", false);
    token.normalized = entry.bool_or("normalized", !token.special);
    std::string spelling = token.content;
    if (token.normalized && normalizer) normalizer->normalize(spelling);
    (token.normalized ? normalized_patterns : raw_patterns).push_back({spelling, added.size()});
    added_by_id[token.id] = added.size();
    added_ids[token.content] = token.id;
    added_spelling.push_back(std::move(spelling));
    added.push_back(std::move(token));
  }
  raw_matcher = AddedTokenMatcher(std::move(raw_patterns));
  normalized_matcher = AddedTokenMatcher(std::move(normalized_patterns));
}

void Tokenizer::Impl::count_ids() {
  vocab_size = static_cast<size_t>(model->id_limit());
  for (const AddedToken& token : added) vocab_size = std::max(vocab_size, static_cast<size_t>(token.id) + 1);
}

void Tokenizer::Impl::unknown_id(int32_t id) const {
  throw TokenizerError(name + ": id " + std::to_string(id) + " is not in the vocabulary (of " +
                       std::to_string(vocab_size) + " ids)");
}

Tokenizer Tokenizer::from_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw TokenizerError(path.string() + ": cannot be read (" + std::strerror(errno) + ")");
  std::ostringstream text;
  text << file.rdbuf();
  return from_json(text.str(), path.string());
}

Tokenizer Tokenizer::from_json(std::string_view json, std::string_view name) {
  auto impl = std::make_shared<Impl>();
  impl->name = name;
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(json);
  } catch (const nlohmann::json::parse_error& error) {
    // nlohmann's message after its "[json.exception.parse_error.101] " tag.
    const std::string reason = error.what();
    const size_t tag_end = reason.find("] ");
    fail_at(impl->name, "",
            "not JSON at byte " + std::to_string(error.byte) + " (" +
                (tag_end == std::string::npos ? reason : reason.substr(tag_end + 2)) + ")");
  }
  if (!document.is_object() || !document.contains("model") || !document["model"].is_object()) {
    fail_at(impl->name, "", "not a Hugging Face tokenizer (no \"model\" object)");
  }
  const JsonField root(document, "", impl->name);
  if (const auto version = root.find("version"); version && version->string() != "1.0") {
    version->fail("version " + quote_text(version->string()) + " is not supported (Kiln reads version 1.0)");
  }
  const JsonField model = root.at("model");
  const std::string type = model.string_or("type", "BPE");
  if (type != "BPE") {
    model.at("type").fail("model type " + quote_text(type) + " is not supported (Kiln reads BPE models only)");
  }
  impl->model = std::make_unique<BpeModel>(model);
  if (const auto normalizer = root.find("normalizer")) impl->normalizer = make_normalizer(*normalizer);
  if (const auto pre_tokenizer = root.find("pre_tokenizer")) impl->pre_tokenizer = make_pre_tokenizer(*pre_tokenizer);
  if (const auto decoder = root.find("decoder")) impl->decoder = make_decoder(*decoder);
  if (const auto processor = root.find("post_processor")) read_post_processor(*processor, impl->special_tokens);
  impl->read_added_tokens(root);
  impl->count_ids();
  return Tokenizer(std::move(impl));
}

void Tokenizer::Impl::encode_normalized(std::string_view text, bool starts_input, std::vector<int32_t>& ids) const {
  for (const auto& segment : normalized_matcher.split(text, added)) {
    if (segment.token >= 0) {
      ids.push_back(added[segment.token].id);
      continue;
    }
    std::vector<Piece> pieces{
        {std::string(text.substr(segment.begin, segment.end - segment.begin)), starts_input && segment.begin == 0}};
    if (pre_tokenizer) pre_tokenizer->split(pieces);
    for (const Piece& piece : pieces) model->encode_word(piece.text, ids);
  }
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool add_special_tokens) const {
  if (const size_t invalid = find_invalid_utf8(text); invalid != std::string_view::npos) {
    throw TokenizerError(impl_->name + ": cannot encode text that is not UTF-8 (byte " + std::to_string(invalid) + ")");
  }
  std::vector<int32_t> ids;
  if (add_special_tokens) ids = impl_->special_tokens.before;
  for (const auto& segment : impl_->raw_matcher.split(text, impl_->added)) {
    if (segment.token >= 0) {
      ids.push_back(impl_->added[segment.token].id);
      continue;
    }
    std::string normalized(text.substr(segment.begin, segment.end - segment.begin));
    if (impl_->normalizer) impl_->normalizer->normalize(normalized);
    impl_->encode_normalized(normalized, segment.begin == 0, ids);
  }
  if (add_special_tokens) ids.insert(ids.end(), impl_->special_tokens.after.begin(), impl_->special_tokens.after.end());
  return ids;
}

std::string Tokenizer::decode(std::span<const int32_t> ids, bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (const int32_t id : ids) {
    if (const auto added = impl_->added_by_id.find(id); added != impl_->added_by_id.end()) {
      if (!skip_special_tokens || !impl_->added[added->second].special) {
        tokens.push_back(impl_->added_spelling[added->second]);
      }
    } else if (const std::string* token = impl_->model->token(id)) {
      tokens.push_back(*token);
    } else {
      impl_->unknown_id(id);
    }
  }
  // Without a decoder tokenizers joins the tokens with spaces.
  const char* separator = impl_->decoder ? "" : " ";
  if (impl_->decoder) impl_->decoder->decode(tokens);
  std::string text;
  for (size_t i = 0; i < tokens.size(); ++i) text.append(i == 0 ? "" : separator).append(tokens[i]);
  return text;
}

std::optional<int32_t> Tokenizer::token_id(std::string_view token) const {
  if (const auto added = impl_->added_ids.find(token); added != impl_->added_ids.end()) return added->second;
  return impl_->model->token_id(token);
}

std::string Tokenizer::token(int32_t id) const {
  if (const auto added = impl_->added_by_id.find(id); added != impl_->added_by_id.end()) {
    return impl_->added_spelling[added->second];
  }
  if (const std::string* token = impl_->model->token(id)) return *token;
  impl_->unknown_id(id);
}

size_t Tokenizer::vocab_size() const { return impl_->vocab_size; }

bool Tokenizer::is_special(int32_t id) const {
  const auto added = impl_->added_by_id.find(id);
  return added != impl_->added_by_id.end() && impl_->added[added->second].special;
}

const std::vector<AddedToken>& Tokenizer::added_tokens() const { return impl_->added; }

const std::string& Tokenizer::name() const { return impl_->name; }

// ---------------------------------------------------------------- streaming

TokenStream::TokenStream(Tokenizer tokenizer, bool skip_special_tokens)
    : tokenizer_(std::move(tokenizer)), skip_special_tokens_(skip_special_tokens) {}

std::string TokenStream::push(int32_t id) {
  static_cast<void>(tokenizer_.token(id));  // refuse an unknown id before it joins the window
  if (prefix_.empty() && !ids_.empty()) {
    // Ids that produced no text yet (skipped special tokens) become context.
    std::string text = tokenizer_.decode(ids_, skip_special_tokens_);
    if (!text.ends_with(kReplacementCharacter)) {
      prefix_ = std::move(text);
      prefix_end_ = ids_.size();
    }
  }
  ids_.push_back(id);
  const std::string text = tokenizer_.decode(ids_, skip_special_tokens_);
  if (text.size() <= prefix_.size() || text.ends_with(kReplacementCharacter)) return "";
  // Decoding more ids may rewrite the end of the earlier text (a run of
  // byte tokens that stops being UTF-8); what was returned stays returned.
  std::string fresh = text.substr(shared_prefix(text, prefix_));
  const size_t returned = ids_.size() - prefix_end_;
  ids_.erase(ids_.begin(), ids_.begin() + static_cast<std::ptrdiff_t>(prefix_end_));
  prefix_ = tokenizer_.decode(ids_, skip_special_tokens_);
  prefix_end_ = returned;
  return fresh;
}

std::string TokenStream::finish() {
  std::string rest;
  if (!ids_.empty()) {
    const std::string text = tokenizer_.decode(ids_, skip_special_tokens_);
    rest = text.substr(shared_prefix(text, prefix_));
  }
  ids_.clear();
  prefix_.clear();
  prefix_end_ = 0;
  return rest;
}

}  // namespace kiln::llm
