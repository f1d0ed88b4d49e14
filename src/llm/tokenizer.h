// Hugging Face's tokenizer.json, read and run in C++: text to ids and ids to
// text exactly as the Python `tokenizers` package gives them, for byte-level
// BPE tokenizers (GPT-2, SmolLM2, Llama 3, Qwen 2 and 3, DeepSeek, StarCoder,
// Falcon) and the sentencepiece-style BPE ones with byte fallback (Llama 2,
// Mistral, Phi-3, Gemma).
//
// What a file may use; anything else is refused when it is read, by name:
//   model           BPE: vocab, merges ("a b" or [a, b]), byte_fallback,
//                   unk_token, fuse_unk, ignore_merges,
//                   continuing_subword_prefix, end_of_word_suffix
//   normalizer      Sequence, Prepend, Replace, Strip, ByteLevel, NFC, NFD,
//                   NFKC, NFKD, Lowercase
//   pre_tokenizer   Sequence, Split, ByteLevel, Digits, Metaspace
//   post_processor  TemplateProcessing, ByteLevel, RobertaProcessing,
//                   BertProcessing, Sequence
//   decoder         ByteLevel, Sequence, Replace, ByteFallback, Fuse, Strip,
//                   Metaspace, BPEDecoder
//   added_tokens    found first in the text (the longest at the leftmost
//                   place), never split; single_word, lstrip, rstrip,
//                   normalized and special as tokenizers reads them
// `truncation` and `padding` are ignored: they shape training batches.
//
// Unicode data comes from libraries whose tables are newer than tokenizers'
// (Unicode 12 for its normalization forms): patterns run on PCRE2 (Unicode
// 14 in Debian 12) instead of Oniguruma, the normalizers on utf8proc
// (Unicode 15). Text with characters assigned since may split or normalize
// differently; other text gives the same ids.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "host/host_error.h"

namespace kiln::llm {

/// A tokenizer file Kiln cannot read or use, or a request it cannot serve
/// (text that is not UTF-8, an id outside the vocabulary). The message names
/// the file, where in it, and what was wrong.
class TokenizerError : public HostError {
 public:
  using HostError::HostError;
};

/// An entry of tokenizer.json's `added_tokens`.
struct AddedToken {
  int32_t id = 0;
  std::string content;
  bool special = false;      ///< left out by decode(..., skip_special_tokens)
  bool single_word = false;  ///< found only where no word character touches it
  bool lstrip = false;       ///< takes the whitespace before it
  bool rstrip = false;       ///< takes the whitespace after it
  bool normalized = true;    ///< found in the normalized text, not the raw text
};

/// A tokenizer read from tokenizer.json. Copies share one immutable state;
/// encode and decode may run on several threads at once.
class Tokenizer {
 public:
  /// Reads a tokenizer.json file.
  /// @throws TokenizerError naming the file and the reason.
  static Tokenizer from_file(const std::filesystem::path& path);

  /// Reads tokenizer.json's text; `name` stands for the file in messages.
  /// @throws TokenizerError
  static Tokenizer from_json(std::string_view json, std::string_view name = "tokenizer.json");

  /// The ids of `text`, which must be UTF-8. With `add_special_tokens` the
  /// post-processor's tokens (a BOS, ...) are added as the file says;
  /// without them (what a runner that places its own BOS wants) the ids are
  /// the text's alone. Python's `encode` adds them by default.
  /// @throws TokenizerError when `text` is not UTF-8.
  [[nodiscard]] std::vector<int32_t> encode(std::string_view text, bool add_special_tokens = false) const;

  /// The text of `ids`. Bytes that do not form UTF-8 (a character cut off
  /// at the end, say) come out as U+FFFD.
  /// @param skip_special_tokens leave out added tokens marked special.
  /// @throws TokenizerError for an id the tokenizer does not have.
  [[nodiscard]] std::string decode(std::span<const int32_t> ids, bool skip_special_tokens = false) const;

  /// The id of `token`, an added token's content or a vocabulary entry
  /// spelled as the vocabulary spells it ("Ġthe" in a byte-level one).
  [[nodiscard]] std::optional<int32_t> token_id(std::string_view token) const;

  /// The token of `id`, spelled as the vocabulary spells it.
  /// @throws TokenizerError for an id the tokenizer does not have.
  [[nodiscard]] std::string token(int32_t id) const;

  /// One past the largest id: the rows a model's embedding table needs.
  [[nodiscard]] size_t vocab_size() const;

  /// True if `id` is an added token marked special.
  [[nodiscard]] bool is_special(int32_t id) const;

  /// The file's added tokens, in its order (ids as the tokenizer uses them).
  [[nodiscard]] const std::vector<AddedToken>& added_tokens() const;

  /// The name given at reading (the path, for from_file).
  [[nodiscard]] const std::string& name() const;

 private:
  struct Impl;
  explicit Tokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

/// Decodes ids one at a time as a model generates them: push() returns the
/// text that each id completes and holds back a character whose bytes have
/// not all come, so printed text never has to be taken back. The pushes'
/// texts followed by finish() equal tokenizer.decode() of all the ids.
///
/// It is tokenizers' DecodeStream: each step decodes the ids since the last
/// text it returned, with the id before them for context (decoders that
/// treat a first token specially see the same tokens as in a whole decode),
/// and returns what is new unless it ends in U+FFFD.
class TokenStream {
 public:
  explicit TokenStream(Tokenizer tokenizer, bool skip_special_tokens = false);

  /// The text `id` completes; empty while a character is incomplete (or
  /// the id is a skipped special token).
  /// @throws TokenizerError for an id the tokenizer does not have.
  [[nodiscard]] std::string push(int32_t id);

  /// The text held back, an incomplete character as U+FFFD; the stream then
  /// starts over, as if new.
  [[nodiscard]] std::string finish();

 private:
  Tokenizer tokenizer_;
  bool skip_special_tokens_;
  std::vector<int32_t> ids_;  // the window: context ids, then ids not yet returned
  std::string prefix_;        // decode() of the ids returned so far in the window
  size_t prefix_end_ = 0;     // ids_[0, prefix_end_) are the returned ones
};

}  // namespace kiln::llm
