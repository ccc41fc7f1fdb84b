"""The command line (typer): parse, call gpu_anneal, print."""
