"""The plugin author's list of known failures: a text file of ``key: reason`` lines.

``key`` is a symbol id (``ltorch.add``: every test of that symbol), a test and a symbol
(``test_opinfo_samples[ltorch.add]``), or a test name (``test_fused_chains``); ``#`` starts a
comment; blank lines are ignored. Matching tests are marked ``xfail`` (not strict: a
hypothesis search may or may not hit the known bug), with the reason. A line without a reason
is an error: say why it fails.
"""

from __future__ import annotations


def load(path) -> dict:
    out = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            key, sep, reason = line.partition(": ")
            if not sep or not reason.strip() or not key.strip():
                raise ValueError(f"{path}:{n}: expected 'symbol_id: reason' (a reason is required), got {line!r}")
            out[key.strip()] = reason.strip()
    return out


def reason_for(xfails: dict, test_name: str, symbol: str | None):
    """The xfail reason for a test (``test_name`` without parameters) of ``symbol``, or None."""
    for key in (f"{test_name}[{symbol}]", symbol, test_name):
        if key is not None and key in xfails:
            return xfails[key]
    return None
