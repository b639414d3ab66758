"""A real, installable thunder_core plugin for the core's tests (see plugin.py)."""
