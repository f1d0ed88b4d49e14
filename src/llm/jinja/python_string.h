// Python's str methods on UTF-8 strings, counted in code points as Python
// counts them: what `.split()`, `.replace()`, `.title()`... and the filters
// built on them return.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::llm::jinja::python {

/// `text.split(separator, max_split)`; no separator: runs of whitespace.
/// Throws TemplateError for an empty separator.
std::vector<std::string> split(std::string_view text, std::optional<std::string_view> separator, int64_t max_split);
/// `text.rsplit(separator, max_split)`.
std::vector<std::string> rsplit(std::string_view text, std::optional<std::string_view> separator, int64_t max_split);
/// `text.splitlines()`.
std::vector<std::string> splitlines(std::string_view text);
/// `text.replace(old, replacement, count)`; count < 0: all.
std::string replace(std::string_view text, std::string_view old, std::string_view replacement, int64_t count);
/// `text.find(part)`: code point index, -1 if absent.
int64_t find(std::string_view text, std::string_view part);
/// `text.count(part)`.
int64_t count(std::string_view text, std::string_view part);
/// `text.capitalize()`: first character upper case, the rest lower.
std::string capitalize(std::string_view text);
/// `text.title()`: upper case after a character without case, lower after one with.
std::string title(std::string_view text);
/// `text.islower()` / `text.isupper()`.
bool is_lower(std::string_view text);
bool is_upper(std::string_view text);

}  // namespace kiln::llm::jinja::python
