#include "llm/added_vocabulary.h"

#include <algorithm>
#include <unordered_set>

#include "llm/text_pipeline.h"
#include "llm/utf8.h"

namespace kiln::llm {

namespace {

// Rust's regex `\w`, which tokenizers tests single_word tokens with.
bool is_word_character(std::string_view character) {
  static const Regex word(R"([\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}])");
  return !word.find_all(character).empty();
}

size_t previous_character(std::string_view text, size_t end) {
  size_t lead = end - 1;
  while (lead > 0 && (static_cast<unsigned char>(text[lead]) & 0xC0) == 0x80) --lead;
  return lead;
}

bool word_character_before(std::string_view text, size_t pos) {
  if (pos == 0) return false;
  const size_t lead = previous_character(text, pos);
  return is_word_character(text.substr(lead, pos - lead));
}

bool word_character_after(std::string_view text, size_t pos) {
  if (pos == text.size()) return false;
  return is_word_character(text.substr(pos, utf8_step(text, pos).length));
}

// Where the whitespace that ends text[0, pos) begins.
size_t whitespace_start_before(std::string_view text, size_t pos) {
  while (pos > 0) {
    size_t lead = previous_character(text, pos), at = lead;
    if (!is_white_space(next_code_point(text, at))) break;
    pos = lead;
  }
  return pos;
}

// Where the whitespace that starts text[pos, end) ends.
size_t whitespace_end_after(std::string_view text, size_t pos) {
  while (pos < text.size()) {
    size_t next = pos;
    if (!is_white_space(next_code_point(text, next))) break;
    pos = next;
  }
  return pos;
}

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(std::vector<Pattern> patterns) {
  std::unordered_set<std::string> seen;
  entries_.reserve(patterns.size());
  for (Pattern& pattern : patterns) {
    if (!pattern.text.empty() && seen.insert(pattern.text).second) entries_.push_back(std::move(pattern));
  }
  for (size_t i = 0; i < entries_.size(); ++i) {
    by_first_byte_[static_cast<unsigned char>(entries_[i].text[0])].push_back(i);
  }
  for (auto& bucket : by_first_byte_) {
    std::stable_sort(bucket.begin(), bucket.end(),
                     [this](size_t a, size_t b) { return entries_[a].text.size() > entries_[b].text.size(); });
  }
}

const AddedTokenMatcher::Pattern* AddedTokenMatcher::longest_at(std::string_view text, size_t pos) const {
  for (const size_t entry : by_first_byte_[static_cast<unsigned char>(text[pos])]) {
    if (text.substr(pos).starts_with(entries_[entry].text)) return &entries_[entry];
  }
  return nullptr;
}

std::vector<AddedTokenMatcher::Segment> AddedTokenMatcher::split(std::string_view text,
                                                                 const std::vector<AddedToken>& tokens) const {
  std::vector<Segment> segments;
  size_t done = 0;  // the end of the last token kept
  for (size_t pos = 0; pos < text.size();) {
    const Pattern* entry = longest_at(text, pos);
    if (entry == nullptr) {
      ++pos;
      continue;
    }
    size_t begin = pos, end = pos + entry->text.size();
    pos = end;  // kept or passed over, the search goes on after the match
    const AddedToken& token = tokens[entry->index];
    if (token.single_word && (word_character_before(text, begin) || word_character_after(text, end))) continue;
    if (token.lstrip) begin = whitespace_start_before(text, begin);
    if (token.rstrip) end = whitespace_end_after(text, end);
    // An rstrip token may have taken the start of this match already.
    if (end <= done) continue;
    begin = std::max(begin, done);
    if (done < begin) segments.push_back({done, begin, -1});
    segments.push_back({begin, end, static_cast<int64_t>(entry->index)});
    done = end;
  }
  if (done < text.size()) segments.push_back({done, text.size(), -1});
  return segments;
}

}  // namespace kiln::llm
