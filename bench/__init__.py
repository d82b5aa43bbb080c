"""Benchmarks of the Research Artifact Service: `python -m bench.<name>`; figures are ratios to same-run references."""
