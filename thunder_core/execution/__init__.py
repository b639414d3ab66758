"""Executors and how traces are lowered to them."""
