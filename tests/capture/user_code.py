"""User code for test_errors.py: a model and a helper whose lines the errors must name."""

import torch

BRANCH_LINE = 15  # the `if` of Branchy.forward


class Branchy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.lin(x)
        if y.sum() > 0:
            y = y * 2
        return y


def loss(x, t, v):
    return torch.nn.functional.gaussian_nll_loss(x, t, v)
