"""Refit benchmarks: `make bench` (bench/run.py)."""
