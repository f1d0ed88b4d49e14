// Reading tokenizer.json with errors that say where: each value is read
// through a JsonField, which knows its path in the file ("model.merges[17]")
// and the file's name, and throws a TokenizerError naming both.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llm/tokenizer.h"

namespace kiln::llm {

class JsonField {
 public:
  /// `file` names the file in messages and must outlive the field.
  JsonField(const nlohmann::json& value, std::string path, const std::string& file)
      : value_(&value), path_(std::move(path)), file_(&file) {}

  const nlohmann::json& value() const { return *value_; }
  const std::string& path() const { return path_; }
  const std::string& file() const { return *file_; }

  /// The member `key`; fails unless this is an object that has it (null counts).
  JsonField at(std::string_view key) const;
  /// The member `key`, or nothing when it is absent or null.
  std::optional<JsonField> find(std::string_view key) const;
  /// The elements of an array.
  std::vector<JsonField> elements() const;

  std::string string() const;
  bool boolean() const;
  int64_t integer() const;
  double number() const;
  /// The member `key` read as a string or bool, `fallback` when absent or null.
  std::string string_or(std::string_view key, std::string_view fallback) const;
  bool bool_or(std::string_view key, bool fallback) const;

  /// Throws "FILE: PATH: what".
  [[noreturn]] void fail(std::string_view what) const;

 private:
  JsonField child(const nlohmann::json& value, std::string_view key) const;
  [[noreturn]] void expected(std::string_view kind) const;

  const nlohmann::json* value_;
  std::string path_;
  const std::string* file_;
};

/// Throws "FILE: PATH: what" ("FILE: what" for an empty path).
[[noreturn]] void fail_at(const std::string& file, std::string_view path, std::string_view what);

/// `text` quoted for a message, cut to a readable length.
std::string quote_text(std::string_view text);

}  // namespace kiln::llm
