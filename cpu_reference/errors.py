"""The one exception type for unusable input: its message is a single line naming where and what."""


class InputError(ValueError):
    """Unusable input (a malformed puzzle, a wrong size, a bad parameter).

    The message is one line that names the place (file and line, or parameter) and the fault; the
    CLI prints it as is and exits with code 2.
    """
