"""benchmarks/migrate_stems.py: an older store migrated, with its JSON summary."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "migrate_stems.py"


def test_a_small_older_store_is_migrated_and_reported(tmp_path: Path) -> None:
    turns = [{"speaker": "Mel", "dia_id": f"D1:{n}", "text": text} for n, text in enumerate(
        ["We went camping last weekend", "The kids loved the lakes", "我们去了北京"])]
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([{"conversation": {"session_1": turns, "session_1_date_time": "1 May 2023"}}]))
    out = subprocess.run([sys.executable, str(SCRIPT), "--items", "40", "--locomo", str(data), "--out",
                          str(tmp_path / "stores")], capture_output=True, text=True, timeout=300, check=True).stdout
    summary = json.loads(out.strip().splitlines()[-1])
    result = summary["result"]
    assert result["items"] == 40 and result["migrate_s"] > 0
    assert result["fts_tokens_after"] > result["fts_tokens_before"]  # camping, loved, lakes got their stems
