"""Benchmark scripts, run as `python -m benchmarks.NAME`; results with the machine they ran on
live in benchmarks/results, one folder a topic (benchmarks/README.md)."""
