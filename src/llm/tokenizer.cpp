// placeholder: filled in by the tokenizer work.
#include <string>
