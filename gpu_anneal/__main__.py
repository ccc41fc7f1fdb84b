"""`python -m gpu_anneal`: the gpu-anneal command line."""

from cli.main import run

if __name__ == "__main__":
    run()
