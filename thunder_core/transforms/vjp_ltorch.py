"""VJP rules of torch-level symbols (see ``vjp.py`` for the rule contract)."""
