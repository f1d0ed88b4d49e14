// The BPE model of tokenizer.json: a vocabulary and ranked merges that turn
// one pre-tokenized word into ids, as tokenizers' BPE does it.
//
// A word starts as its characters (each looked up in the vocabulary; one
// missing falls back to its bytes' "<0xXX>" tokens with byte_fallback, else
// to unk_token, else is dropped); then the adjacent pair of lowest merge
// rank is merged, leftmost first, until no pair has a merge. The priority
// queue and its staleness test are tokenizers' own, so that even files
// whose merges give one token two ways encode identically. Words' ids are
// cached, as tokenizers caches them.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kiln::llm {

class JsonField;

/// Hashes std::string and std::string_view alike, so maps keyed by strings
/// can be searched with views.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};

template <typename Value>
using StringMap = std::unordered_map<std::string, Value, StringHash, std::equal_to<>>;

class BpeModel {
 public:
  /// Reads the `model` object; throws TokenizerError for what it cannot use.
  explicit BpeModel(const JsonField& model);

  /// Appends the ids of `word` (a pre-tokenized piece, non-empty).
  void encode_word(std::string_view word, std::vector<int32_t>& ids) const;

  std::optional<int32_t> token_id(std::string_view token) const;
  /// The token of `id`, or nullptr when the vocabulary has none.
  const std::string* token(int32_t id) const;
  /// One past the largest id in the vocabulary.
  int32_t id_limit() const { return static_cast<int32_t>(tokens_.size()); }

 private:
  struct Merge {
    uint32_t rank = 0;
    int32_t merged = 0;
  };
  void read_vocab(const JsonField& model);
  void read_merges(const JsonField& model);
  std::vector<int32_t> initial_symbols(std::string_view word) const;
  std::vector<int32_t> merge_word(std::string_view word) const;
  const Merge* find_merge(int32_t left, int32_t right) const;

  StringMap<int32_t> vocab_;
  std::vector<std::optional<std::string>> tokens_;  // by id
  std::unordered_map<uint64_t, Merge> merges_;      // (left id << 32 | right id)
  std::optional<std::string> unk_token_;
  std::optional<int32_t> unk_id_;
  std::string continuing_subword_prefix_;
  std::string end_of_word_suffix_;
  bool fuse_unk_ = false;
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;
  std::string file_;

  struct Cache {
    std::mutex mutex;
    StringMap<std::vector<int32_t>> words;
  };
  std::unique_ptr<Cache> cache_ = std::make_unique<Cache>();
};

}  // namespace kiln::llm
