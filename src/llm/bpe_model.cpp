#include "llm/bpe_model.h"

#include <array>
#include <cstdio>
#include <queue>

#include "llm/tokenizer_json.h"
#include "llm/utf8.h"

namespace kiln::llm {

namespace {

// tokenizers caches words shorter than this, up to kCacheWords of them.
constexpr size_t kCacheWordBytes = 256;
constexpr size_t kCacheWords = 10000;
// Ids past this are refused rather than given a table of that size.
constexpr int64_t kMaxId = (int64_t{1} << 24) - 1;

uint64_t pair_key(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

std::string byte_token(unsigned char byte) {
  char name[8];
  std::snprintf(name, sizeof name, "<0x%02X>", byte);
  return name;
}

}  // namespace

BpeModel::BpeModel(const JsonField& model) : file_(model.file()) {
  if (const auto dropout = model.find("dropout"); dropout && dropout->number() != 0.0) {
    dropout->fail("BPE dropout makes encoding random; Kiln encodes without it (set it to null)");
  }
  if (const auto unk = model.find("unk_token")) unk_token_ = unk->string();
  if (const auto prefix = model.find("continuing_subword_prefix")) continuing_subword_prefix_ = prefix->string();
  if (const auto suffix = model.find("end_of_word_suffix")) end_of_word_suffix_ = suffix->string();
  fuse_unk_ = model.bool_or("fuse_unk", false);
  byte_fallback_ = model.bool_or("byte_fallback", false);
  ignore_merges_ = model.bool_or("ignore_merges", false);
  read_vocab(model);
  read_merges(model);
  if (unk_token_) unk_id_ = token_id(*unk_token_);
}

void BpeModel::read_vocab(const JsonField& model) {
  const JsonField vocab = model.at("vocab");
  if (!vocab.value().is_object()) vocab.fail("expected an object of token: id");
  vocab_.reserve(vocab.value().size());
  int64_t largest = -1;
  for (const auto& [token, id] : vocab.value().items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > kMaxId) {
      vocab.fail("token " + quote_text(token) + " has id " + id.dump() + ", expected an integer in [0, " +
                 std::to_string(kMaxId) + "]");
    }
    largest = std::max(largest, id.get<int64_t>());
    vocab_.emplace(token, static_cast<int32_t>(id.get<int64_t>()));
  }
  tokens_.resize(static_cast<size_t>(largest + 1));
  for (const auto& [token, id] : vocab_) {
    if (!tokens_[id]) tokens_[id] = token;
  }
}

void BpeModel::read_merges(const JsonField& model) {
  const JsonField merges = model.at("merges");
  if (!merges.value().is_array()) merges.fail("expected an array of merges");
  merges_.reserve(merges.value().size());
  uint32_t rank = 0;
  size_t index = 0;
  const auto where = [&] { return merges.path() + "[" + std::to_string(index) + "]"; };
  for (const nlohmann::json& merge : merges.value()) {
    std::string left, right;
    if (merge.is_string()) {
      // The legacy form "left right", as merges.txt holds it.
      const std::string& line = merge.get_ref<const std::string&>();
      if (line.starts_with("#version")) {
        ++index;
        continue;
      }
      const size_t space = line.find(' ');
      if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos) {
        fail_at(file_, where(), "expected two tokens separated by one space, got " + quote_text(line));
      }
      left = line.substr(0, space);
      right = line.substr(space + 1);
    } else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string()) {
      left = merge[0].get<std::string>();
      right = merge[1].get<std::string>();
    } else {
      fail_at(file_, where(), "expected \"left right\" or [left, right], got " + quote_text(merge.dump()));
    }
    if (!right.starts_with(continuing_subword_prefix_)) {
      fail_at(file_, where(), "token " + quote_text(right) + " lacks the continuing_subword_prefix");
    }
    const std::string merged = left + right.substr(continuing_subword_prefix_.size());
    const std::array<const std::string*, 3> tokens = {&left, &right, &merged};
    std::array<int32_t, 3> ids{};
    for (size_t i = 0; i < tokens.size(); ++i) {
      const auto id = token_id(*tokens[i]);
      if (!id) fail_at(file_, where(), "token " + quote_text(*tokens[i]) + " is not in the vocabulary");
      ids[i] = *id;
    }
    // A pair given twice keeps its last rank, as in tokenizers.
    merges_[pair_key(ids[0], ids[1])] = {rank++, ids[2]};
    ++index;
  }
}

std::optional<int32_t> BpeModel::token_id(std::string_view token) const {
  const auto it = vocab_.find(token);
  if (it == vocab_.end()) return std::nullopt;
  return it->second;
}

const std::string* BpeModel::token(int32_t id) const {
  if (id < 0 || id >= id_limit() || !tokens_[id]) return nullptr;
  return &*tokens_[id];
}

const BpeModel::Merge* BpeModel::find_merge(int32_t left, int32_t right) const {
  const auto it = merges_.find(pair_key(left, right));
  return it == merges_.end() ? nullptr : &it->second;
}

std::vector<int32_t> BpeModel::initial_symbols(std::string_view word) const {
  std::vector<int32_t> symbols;
  std::optional<int32_t> pending_unk;  // unknown characters waiting to be fused
  std::string key;
  for (size_t pos = 0; pos < word.size();) {
    const size_t length = utf8_step(word, pos).length;
    key.clear();
    if (pos != 0) key += continuing_subword_prefix_;
    key.append(word.substr(pos, length));
    pos += length;
    if (pos == word.size()) key += end_of_word_suffix_;

    if (const auto id = token_id(key)) {
      if (pending_unk) symbols.push_back(*std::exchange(pending_unk, std::nullopt));
      symbols.push_back(*id);
      continue;
    }
    if (byte_fallback_) {
      std::vector<int32_t> bytes;
      for (const char byte : key) {
        const auto id = token_id(byte_token(static_cast<unsigned char>(byte)));
        if (!id) break;
        bytes.push_back(*id);
      }
      // tokenizers leaves a pending unknown pending here, so it lands after these bytes.
      if (bytes.size() == key.size()) {
        symbols.insert(symbols.end(), bytes.begin(), bytes.end());
        continue;
      }
    }
    if (!unk_token_) continue;  // no unk_token: the character is dropped, as in tokenizers
    if (!unk_id_) {
      throw TokenizerError(file_ + ": model.unk_token " + quote_text(*unk_token_) +
                           " is not in the vocabulary, and the text has a character outside it");
    }
    if (pending_unk && !fuse_unk_) symbols.push_back(*pending_unk);
    pending_unk = unk_id_;
  }
  if (pending_unk) symbols.push_back(*pending_unk);
  return symbols;
}

std::vector<int32_t> BpeModel::merge_word(std::string_view word) const {
  struct Symbol {
    int32_t id;
    int32_t prev, next;  // neighbours' positions, -1 for none
    bool removed;
  };
  struct Candidate {
    uint32_t rank;
    int32_t pos;  // the pair's left symbol
    int32_t merged;
  };
  const std::vector<int32_t> initial = initial_symbols(word);
  const auto count = static_cast<int32_t>(initial.size());
  std::vector<Symbol> symbols;
  symbols.reserve(initial.size());
  for (int32_t i = 0; i < count; ++i) symbols.push_back({initial[i], i - 1, i + 1 < count ? i + 1 : -1, false});

  const auto later = [](const Candidate& a, const Candidate& b) {
    return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(later)> queue(later);
  const auto offer = [&](int32_t pos) {
    if (pos < 0 || symbols[pos].next < 0) return;
    if (const Merge* merge = find_merge(symbols[pos].id, symbols[symbols[pos].next].id)) {
      queue.push({merge->rank, pos, merge->merged});
    }
  };
  for (int32_t i = 0; i + 1 < count; ++i) offer(i);

  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    Symbol& left = symbols[top.pos];
    if (left.removed || left.next < 0) continue;
    Symbol& right = symbols[left.next];
    // A candidate is stale when its pair has changed since it was queued.
    const Merge* merge = find_merge(left.id, right.id);
    if (merge == nullptr || merge->merged != top.merged) continue;
    left.id = top.merged;
    right.removed = true;
    left.next = right.next;
    if (left.next >= 0) symbols[left.next].prev = top.pos;
    offer(left.prev);
    offer(top.pos);
  }

  std::vector<int32_t> ids;
  for (const Symbol& symbol : symbols) {
    if (!symbol.removed) ids.push_back(symbol.id);
  }
  return ids;
}

void BpeModel::encode_word(std::string_view word, std::vector<int32_t>& ids) const {
  if (ignore_merges_) {
    if (const auto id = token_id(word)) {
      ids.push_back(*id);
      return;
    }
  }
  {
    const std::lock_guard lock(cache_->mutex);
    if (const auto it = cache_->words.find(word); it != cache_->words.end()) {
      ids.insert(ids.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<int32_t> merged = merge_word(word);
  ids.insert(ids.end(), merged.begin(), merged.end());
  if (word.size() < kCacheWordBytes) {
    const std::lock_guard lock(cache_->mutex);
    if (cache_->words.size() < kCacheWords) cache_->words.emplace(word, std::move(merged));
  }
}

}  // namespace kiln::llm
