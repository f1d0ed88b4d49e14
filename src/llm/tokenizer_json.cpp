#include "llm/tokenizer_json.h"

namespace kiln::llm {

void fail_at(const std::string& file, std::string_view path, std::string_view what) {
  std::string message = file + ": ";
  if (!path.empty()) message.append(path).append(": ");
  throw TokenizerError(message.append(what));
}

std::string quote_text(std::string_view text) {
  constexpr size_t kLongest = 60;
  if (text.size() <= kLongest) return "'" + std::string(text) + "'";
  size_t cut = kLongest;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // keep characters whole
  return "'" + std::string(text.substr(0, cut)) + "...'";
}

void JsonField::fail(std::string_view what) const { fail_at(*file_, path_, what); }

void JsonField::expected(std::string_view kind) const {
  fail("expected " + std::string(kind) + ", got " + quote_text(value_->dump()));
}

JsonField JsonField::child(const nlohmann::json& value, std::string_view key) const {
  return JsonField(value, path_.empty() ? std::string(key) : path_ + "." + std::string(key), *file_);
}

JsonField JsonField::at(std::string_view key) const {
  if (!value_->is_object()) expected("an object with \"" + std::string(key) + "\"");
  const auto it = value_->find(std::string(key));
  if (it == value_->end()) fail("\"" + std::string(key) + "\" is missing");
  return child(*it, key);
}

std::optional<JsonField> JsonField::find(std::string_view key) const {
  if (!value_->is_object()) expected("an object");
  const auto it = value_->find(std::string(key));
  if (it == value_->end() || it->is_null()) return std::nullopt;
  return child(*it, key);
}

std::vector<JsonField> JsonField::elements() const {
  if (!value_->is_array()) expected("an array");
  std::vector<JsonField> elements;
  for (size_t i = 0; i < value_->size(); ++i) {
    elements.emplace_back((*value_)[i], path_ + "[" + std::to_string(i) + "]", *file_);
  }
  return elements;
}

std::string JsonField::string() const {
  if (!value_->is_string()) expected("a string");
  return value_->get<std::string>();
}

bool JsonField::boolean() const {
  if (!value_->is_boolean()) expected("true or false");
  return value_->get<bool>();
}

int64_t JsonField::integer() const {
  if (!value_->is_number_integer() || (value_->is_number_unsigned() && value_->get<uint64_t>() > INT64_MAX)) {
    expected("an integer");
  }
  return value_->get<int64_t>();
}

double JsonField::number() const {
  if (!value_->is_number()) expected("a number");
  return value_->get<double>();
}

std::string JsonField::string_or(std::string_view key, std::string_view fallback) const {
  const auto field = find(key);
  return field ? field->string() : std::string(fallback);
}

bool JsonField::bool_or(std::string_view key, bool fallback) const {
  const auto field = find(key);
  return field ? field->boolean() : fallback;
}

}  // namespace kiln::llm
