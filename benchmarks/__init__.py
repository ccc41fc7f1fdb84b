"""Benchmark scripts; results with the machine they ran on live in benchmarks/results."""
