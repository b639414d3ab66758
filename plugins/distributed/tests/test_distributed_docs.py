"""docs/distributed.md: its Python blocks run on 2 ranks (each block is a program for every
rank; their asserts compare tc.jit with eager)."""

import pathlib

import distributed_scenarios as scenarios

DOC = pathlib.Path(__file__).resolve().parents[3] / "docs" / "distributed.md"


def test_distributed_doc_runs_on_two_ranks(ranks):
    counts = ranks.run(scenarios.doc_blocks, str(DOC), timeout=300)
    assert counts[0] == counts[1] >= 6
