// placeholder: filled in by the chat_template work.
#include <string>
