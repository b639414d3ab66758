"""Trace-to-trace transforms."""
