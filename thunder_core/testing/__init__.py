"""Testing helpers shipped with thunder_core: ``opcheck`` (one op through the op language vs
eager) and ``conformance`` (the op conformance kit for executor authors, a pytest plugin;
docs/conformance.md)."""
