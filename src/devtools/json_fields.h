// Typed reads of the JSON the devtools read back (the debug record, the Kiln
// trace), which may come from anywhere: nlohmann's get<int64_t>() of a number
// stored as a float converts it with a cast (undefined past the integer's
// range) and value("format", "") throws a type_error the caller did not
// expect. These refuse what does not fit with a json::type_error, which the
// readers turn into "a malformed record".
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kiln::devtools {

/// `value` as a T: a JSON integer (not a float) within T's range.
template <typename T>
T json_integer(const nlohmann::json& value) {
  if (value.is_number_unsigned()) {
    const uint64_t number = value.get<uint64_t>();
    if (number <= static_cast<uint64_t>(std::numeric_limits<T>::max())) return static_cast<T>(number);
  } else if (value.is_number_integer()) {
    const int64_t number = value.get<int64_t>();
    const bool fits = number < 0 ? std::numeric_limits<T>::is_signed && number >= static_cast<int64_t>(std::numeric_limits<T>::min())
                                 : static_cast<uint64_t>(number) <= static_cast<uint64_t>(std::numeric_limits<T>::max());
    if (fits) return static_cast<T>(number);
  }
  throw nlohmann::json::type_error::create(302, "expected an integer in range, got " + value.dump(), &value);
}

/// `value`, an array of integers, as int64s.
inline std::vector<int64_t> json_integers(const nlohmann::json& value) {
  if (!value.is_array()) throw nlohmann::json::type_error::create(302, "expected an array, got " + value.dump(), &value);
  std::vector<int64_t> result;
  for (const nlohmann::json& item : value) result.push_back(json_integer<int64_t>(item));
  return result;
}

/// True if `object` has `key` holding the string `expected`.
inline bool json_field_is(const nlohmann::json& object, const char* key, const std::string& expected) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() && it->get<std::string>() == expected;
}

/// True if `object` has `key` holding the integer `expected`.
inline bool json_field_is(const nlohmann::json& object, const char* key, int64_t expected) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number_integer() && !it->is_number_unsigned() ? it->get<int64_t>() == expected
         : it != object.end() && it->is_number_unsigned() ? it->get<uint64_t>() == static_cast<uint64_t>(expected)
                                                          : false;
}

}  // namespace kiln::devtools
