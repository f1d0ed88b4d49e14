// The decoder of tokenizer.json: how the tokens of some ids become text.
// Each decoder rewrites the list of token strings (tokenizers'
// decode_chain); the text is the final list joined.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace kiln::llm {

class JsonField;

class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual void decode(std::vector<std::string>& tokens) const = 0;
};

/// The `decoder` of tokenizer.json; nullptr for null (tokens are then
/// joined with spaces). Throws TokenizerError for a type Kiln lacks.
std::unique_ptr<Decoder> make_decoder(const JsonField& field);

}  // namespace kiln::llm
