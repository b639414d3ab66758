"""Testing helpers shipped with thunder_core (op checks; the executor conformance kit later)."""
