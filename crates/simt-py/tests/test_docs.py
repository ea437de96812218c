"""The ```python blocks of docs/python.md run as written, in order, from the repository root."""

import os
import re

from conftest import ROOT


def test_docs_python_blocks_run(capsys):
    text = (ROOT / "docs" / "python.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)
    assert len(blocks) >= 4
    namespace = {}
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for block in blocks:
            exec(compile(block, "docs/python.md", "exec"), namespace)
    finally:
        os.chdir(cwd)
