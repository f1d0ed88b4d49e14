#include "llm/jinja/unicode.h"

namespace kiln::llm::jinja::unicode {
namespace {

constexpr char32_t kEscapedByteBase = 0xDC00;

// Length of the UTF-8 sequence starting at `data[0]`, or 0 if it is not a
// valid, shortest-form encoding of a scalar value.
size_t sequence_length(std::string_view data, char32_t& code_point) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(data[i]); };
  const unsigned char lead = byte(0);
  size_t length = 0;
  char32_t minimum = 0;
  if (lead < 0x80) {
    code_point = lead;
    return 1;
  } else if ((lead & 0xE0) == 0xC0) {
    length = 2, minimum = 0x80, code_point = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, minimum = 0x800, code_point = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, minimum = 0x10000, code_point = lead & 0x07;
  } else {
    return 0;
  }
  if (data.size() < length) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(i) & 0x3F);
  }
  const bool surrogate = code_point >= 0xD800 && code_point <= 0xDFFF;
  if (code_point < minimum || code_point > 0x10FFFF || surrogate) return 0;
  return length;
}

// Pairs laid out as capital, small, capital, small... from `first` to `last`;
// `upper_is_even` says which parity holds the capitals.
struct AlternatingRange {
  char32_t first;
  char32_t last;
  bool upper_is_even;
};
constexpr AlternatingRange kAlternatingRanges[] = {
    {0x0100, 0x012F, true},  {0x0132, 0x0137, true}, {0x0139, 0x0148, false}, {0x014A, 0x0177, true},
    {0x0179, 0x017E, false}, {0x0460, 0x0481, true}, {0x048A, 0x04BF, true},
};

// Ranges where the capital and the small letter are `offset` apart.
struct OffsetRange {
  char32_t upper_first;
  char32_t upper_last;
  char32_t offset;
};
constexpr OffsetRange kOffsetRanges[] = {
    {U'A', U'Z', 32},     {0x00C0, 0x00D6, 32}, {0x00D8, 0x00DE, 32}, {0x0391, 0x03A1, 32}, {0x03A3, 0x03AB, 32},
    {0x0388, 0x038A, 37}, {0x038E, 0x038F, 63}, {0x0410, 0x042F, 32}, {0x0400, 0x040F, 80},
};

}  // namespace

std::u32string decode(std::string_view utf8) {
  std::u32string out;
  out.reserve(utf8.size());
  while (!utf8.empty()) {
    char32_t code_point = 0;
    size_t length = sequence_length(utf8, code_point);
    if (length == 0) {
      code_point = kEscapedByteBase + static_cast<unsigned char>(utf8[0]);
      length = 1;
    }
    out.push_back(code_point);
    utf8.remove_prefix(length);
  }
  return out;
}

void append_utf8(std::string& out, char32_t c) {
  if (c >= kEscapedByteBase + 0x80 && c <= kEscapedByteBase + 0xFF) {
    out.push_back(static_cast<char>(c - kEscapedByteBase));
  } else if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

std::string encode(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t c : text) append_utf8(out, c);
  return out;
}

size_t length(std::string_view utf8) {
  size_t count = 0;
  while (!utf8.empty()) {
    char32_t code_point = 0;
    const size_t length = sequence_length(utf8, code_point);
    utf8.remove_prefix(length == 0 ? 1 : length);
    ++count;
  }
  return count;
}

bool is_space(char32_t c) {
  if (c <= 0x20) return c == 0x20 || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  switch (c) {
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

char32_t to_upper(char32_t c) {
  if (c < 0x80) return (c >= U'a' && c <= U'z') ? c - 32 : c;
  for (const OffsetRange& range : kOffsetRanges) {
    if (c >= range.upper_first + range.offset && c <= range.upper_last + range.offset) return c - range.offset;
  }
  for (const AlternatingRange& range : kAlternatingRanges) {
    if (c >= range.first && c <= range.last && ((c % 2 == 0) != range.upper_is_even)) return c - 1;
  }
  switch (c) {
    case 0x00B5:
      return 0x039C;
    case 0x00FF:
      return 0x0178;
    case 0x0131:
      return U'I';
    case 0x017F:
      return U'S';
    case 0x03AC:
      return 0x0386;
    case 0x03C2:
      return 0x03A3;
    case 0x03CC:
      return 0x038C;
    default:
      return c;
  }
}

char32_t to_lower(char32_t c) {
  if (c < 0x80) return (c >= U'A' && c <= U'Z') ? c + 32 : c;
  for (const OffsetRange& range : kOffsetRanges) {
    if (c >= range.upper_first && c <= range.upper_last) return c + range.offset;
  }
  for (const AlternatingRange& range : kAlternatingRanges) {
    if (c >= range.first && c <= range.last && ((c % 2 == 0) == range.upper_is_even)) return c + 1;
  }
  switch (c) {
    case 0x0130:
      return U'i';
    case 0x0178:
      return 0x00FF;
    case 0x0386:
      return 0x03AC;
    case 0x038C:
      return 0x03CC;
    default:
      return c;
  }
}

std::string upper(std::string_view utf8) {
  std::u32string text = decode(utf8);
  for (char32_t& c : text) c = to_upper(c);
  return encode(text);
}

std::string lower(std::string_view utf8) {
  std::u32string text = decode(utf8);
  for (char32_t& c : text) c = to_lower(c);
  return encode(text);
}

std::string strip(std::string_view utf8, const std::u32string* chars, bool left, bool right) {
  const std::u32string text = decode(utf8);
  const auto stripped = [&](char32_t c) { return chars ? chars->find(c) != std::u32string::npos : is_space(c); };
  size_t begin = 0;
  size_t end = text.size();
  while (left && begin < end && stripped(text[begin])) ++begin;
  while (right && end > begin && stripped(text[end - 1])) --end;
  return encode(std::u32string_view(text).substr(begin, end - begin));
}

}  // namespace kiln::llm::jinja::unicode
