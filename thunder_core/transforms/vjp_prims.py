"""VJP rules of the primitives (see ``vjp.py`` for the rule contract)."""
