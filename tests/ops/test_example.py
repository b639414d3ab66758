import pytest
import torch

from thunder_core.testing.opcheck import check_op

pytest.importorskip("thunder_executor_torch")


@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 3), (3,)), ((0, 3), (1, 3)), ((4, 1), (1, 5))])
def test_add_broadcasting(shapes):
    a, b = (torch.randn(s) for s in shapes)
    check_op(torch.add, a, b, alpha=2)


def test_add_method_with_number_and_noncontiguous():
    a = torch.randn(4, 3).t()
    check_op(torch.Tensor.add, a, 5)
