// Python's repr of a float, which Kiln's printouts use wherever a float is
// shown as a value (the compiler's graph printer, `kiln run`'s outputs).
// Header-only: every host library and both builds of the tool read it.
#pragma once

#include <charconv>
#include <cmath>
#include <string>

namespace kiln {

/// The shortest digits that read back, positional for exponents in
/// [-4, 16) ("0.5", "3.0"), scientific otherwise ("1e-05", "1e+16").
inline std::string python_float(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto sci = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  const std::string scientific(buffer, sci.ptr);
  const int exponent = std::stoi(scientific.substr(scientific.find('e') + 1));
  if (exponent < -4 || exponent >= 16) return scientific;
  const auto fixed = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
  std::string text(buffer, fixed.ptr);
  if (text.find('.') == std::string::npos) text += ".0";
  return text;
}

}  // namespace kiln
