"""Kiln's exceptions. The extension raises them (python/src/convert.cpp)."""


class KilnError(Exception):
    """A Kiln error: the message is the one the kiln tool prints (the node,
    the op, the reason)."""


class InputError(KilnError, ValueError):
    """An input, option or value passed to Kiln that does not fit (a wrong
    dtype, shape or count, an unknown option): the message names what was
    expected."""
