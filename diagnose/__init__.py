"""diagnose: explains why tensor-parallel LLM inference is slower than it should be."""

__version__ = "0.1.0"
