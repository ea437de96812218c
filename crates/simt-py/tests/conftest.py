import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture
def asm():
    """The repository's asm/ folder."""
    return ROOT / "asm"
