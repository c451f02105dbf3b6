"""A cursor is a next_cursor a listing gave, or nothing: made-up text is refused, not an empty page."""

from __future__ import annotations

import pytest

from hlmem.adapters.page_cursor import InvalidCursor, check_cursor
from hlmem.domain.errors import ValidationError


@pytest.mark.parametrize(("cursor", "prefix"), [(None, "cl"), ("cl_01M98559JH69G7WGBJMSFK1V5E", "cl"),
                                                ("cl_00000000000000000000000012", "cl"), ("ep_01ABC", "ep")])
def test_a_real_cursor_passes(cursor: str | None, prefix: str) -> None:
    assert check_cursor(cursor, prefix) == cursor


@pytest.mark.parametrize("cursor", ["garbage", "", "cl_", "ep_01ABC", "cl_01ABC'--", "cl_a/b", "CL_01", "cl_" + "x" * 65,
                                    "cl_01\n", "中文"])
def test_anything_else_is_refused(cursor: str) -> None:
    with pytest.raises(InvalidCursor) as caught:
        check_cursor(cursor, "cl")
    assert isinstance(caught.value, ValidationError) and caught.value.field == "cursor"
    assert "next_cursor" in str(caught.value) and "cl_" in str(caught.value)
