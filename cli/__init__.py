"""The command line (typer): parse, call gpu_anneal, print."""

from cli import startup

if startup.is_command():
    startup.begin()  # Ctrl-C, closed streams and NUMBA_NUM_THREADS, before any heavy import
