"""The project's exception and warning types for unusable input: one line naming where and what.

InputError      any unusable input; the CLI prints its message and exits with code 2
  OptionError   a parameter outside its allowed range (the message states the range)
  OutputError   a results or picture file that cannot be written (a folder, a missing
                folder, a full disk)
ResumeWarning   a resume file's record that is not trusted, or a torn last line: the puzzle
                is solved again, nothing is lost
KernelWarning   a CUDA run takes another kernel than the first choice: the message says why
LimitWarning    a run that will likely pass its time limit (one plateau of all its chains,
                measured now, takes longer): it runs all the same, the message says by how much
"""


class InputError(ValueError):
    """Unusable input (a malformed puzzle, a wrong size, a bad parameter).

    The message is one line that names the place (file and line, or parameter) and the fault; the
    CLI prints it as is and exits with code 2.
    """


class OptionError(InputError):
    """A parameter (option, schedule key, array) outside what it may be; the message gives the
    allowed range."""


class OutputError(InputError):
    """An output file that cannot be written; the message names the file and the reason."""


class ResumeWarning(UserWarning):
    """A resume file's record that is not trusted (its puzzle is solved again), or a torn line."""


class KernelWarning(UserWarning):
    """A CUDA run takes another kernel than the first choice (the cooperative kernel does not fit
    the device); the message names why. The chains are the same."""


class LimitWarning(UserWarning):
    """One plateau of all the run's chains, as measured now, takes longer than its time limit:
    the run goes on (each puzzle runs at least one plateau, then stops at its limit). A rate
    measured while the machine is busy can be far too low, so it never refuses the run."""
