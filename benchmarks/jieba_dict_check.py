"""jieba's tokens from hlmem's dictionary file equal jieba's own, on the benchmark corpora (issue 36 item 1).

hlmem reads jieba's dictionary word by word from a SQLite copy (adapters/text/jieba_dict.py)
instead of loading it whole. This cuts every text of LoCoMo, MemDaily and the HL-Mem corpora
(the Han runs hlmem hands to jieba, and whole texts) with both tokenizers — search mode, precise
mode with and without HMM, and posseg's tags — and counts the texts where they differ (must be 0).
It also times the first cut of a fresh tokenizer each way.

    python benchmarks/jieba_dict_check.py [--datasets /work/shared/datasets]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def corpora(root: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    locomo = root / "locomo" / "locomo_dev.json"
    if locomo.exists():
        out["locomo"] = _strings(json.loads(locomo.read_text(encoding="utf-8")))
    memdaily = sorted((root / "memsim_memdaily").glob("*.json"))
    if memdaily:
        out["memdaily"] = [s for p in memdaily for s in _strings(json.loads(p.read_text(encoding="utf-8")))]
    hl = sorted((root / "hl_mem").glob("*.jsonl"))
    if hl:
        out["hl_mem"] = [s for p in hl for line in p.read_text(encoding="utf-8").splitlines() if line.strip()
                         for s in _strings(json.loads(line))]
    return {name: list(dict.fromkeys(t for t in texts if t.strip())) for name, texts in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "datasets")
    args = parser.parse_args()
    import jieba.posseg

    from hlmem.adapters.text import jieba_dict
    from hlmem.adapters.text.pos import _pos_tokenizer_class
    from hlmem.adapters.text.segment import _HAN, _whole_dictionary, cache_file

    import re

    start = time.perf_counter()
    lazy = jieba_dict.lazy_tokenizer(cache_file(), _whole_dictionary)
    lazy.cut_for_search("我住在杭州")
    lazy_s = time.perf_counter() - start
    jieba_dict.FULL_AFTER = 10**12  # never switch: every answer below comes from the file
    start = time.perf_counter()
    whole = _whole_dictionary()
    whole.cut_for_search("我住在杭州")
    whole_s = time.perf_counter() - start
    lazy_pos, whole_pos = _pos_tokenizer_class()(lazy), jieba.posseg.POSTokenizer(whole)
    han = re.compile(f"[{_HAN}]+")
    report = {"first_cut_s": {"file": round(lazy_s, 3), "whole": round(whole_s, 3)}, "corpora": {}}
    for name, texts in corpora(args.datasets).items():
        runs = list(dict.fromkeys(r for t in texts for r in han.findall(t)))
        differ = 0
        tokens = 0
        for text in [*runs, *texts]:
            a = (list(lazy.cut_for_search(text)), list(lazy.cut(text)), list(lazy.cut(text, HMM=False)))
            b = (list(whole.cut_for_search(text)), list(whole.cut(text)), list(whole.cut(text, HMM=False)))
            tokens += len(a[0])
            differ += a != b
        tagged = [t for t in runs[:3000]]
        tag_differ = sum([tuple(p) for p in lazy_pos.cut(t)] != [tuple(p) for p in whole_pos.cut(t)] for t in tagged)
        report["corpora"][name] = {"texts": len(texts), "han_runs": len(runs), "search_tokens": tokens,
                                   "texts_that_differ": differ, "pos_tagged": len(tagged), "pos_differ": tag_differ}
        print(name, report["corpora"][name], flush=True)
    print(json.dumps(report, ensure_ascii=False))


if __name__ == "__main__":
    main()
