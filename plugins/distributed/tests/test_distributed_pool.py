"""The 2-rank pool the multi-process tests run on: results come back in rank order, and a
test fails (never hangs) when a rank raises or waits for a collective its peer never makes.
(This file sorts last: its failures kill the session's pool, and the next test starts one.)"""

import pytest

import distributed_pool_cases as cases
from distributed_ranks import RankFailed


def test_results_come_back_per_rank(ranks):
    assert ranks.run(cases.rank_and_sum) == [(0, 3.0), (1, 3.0)]


def test_a_failing_rank_fails_the_run(ranks):
    with pytest.raises(RankFailed, match="(?s)failed on rank 1.*rank 1 failed on purpose"):
        ranks.run(cases.fails_on_rank_1)
    assert not ranks.alive


def test_a_hanging_rank_fails_the_run_in_time(ranks):
    ranks.run(cases.rank_and_sum)  # started: the timeout below is the hang alone
    with pytest.raises(RankFailed, match=r"ranks \[1\] did not answer within 3 s"):
        ranks.run(cases.hangs_on_rank_1, timeout=3)
    assert not ranks.alive
