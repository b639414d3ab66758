"""The namespace of opaque symbols: ``opaque.<name>`` in printed traces (see opaque.py)."""
