"""Every Python block in docs/*.md runs (docs that drift from the code fail here)."""

import pathlib
import re

import pytest

# docs/distributed.md: programs for every rank of a process group, run on 2 ranks by
# plugins/distributed/tests/test_distributed_docs.py (with the plugin they need)
ELSEWHERE = {"distributed.md"}
DOCS = sorted(p for p in (pathlib.Path(__file__).parent.parent / "docs").glob("*.md") if p.name not in ELSEWHERE)


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_python_blocks_run(path, real_split_price):
    blocks = re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)
    ns = {"__name__": f"docs_{path.stem.replace('-', '_')}"}
    for block in blocks:
        exec(compile(block, str(path), "exec"), ns)
