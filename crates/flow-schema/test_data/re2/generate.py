"""Regenerates verdicts.json: what RE2 itself says of every pattern in patterns.json.

The RE2 check in src/validate/re2.rs is tested against this file (re2/tests.rs), so that its
verdicts are RE2's, not a guess. Run by hand when patterns.json changes, with RE2's Python
binding at the release the check targets:

    python3 -m venv /tmp/re2 && /tmp/re2/bin/pip install google-re2==1.1.20251105
    /tmp/re2/bin/python generate.py

Each verdict is null (RE2 compiles the pattern with its default options) or RE2's error text.
"""
import json
import pathlib

import re2

here = pathlib.Path(__file__).parent
patterns = json.loads((here / "patterns.json").read_text(encoding="utf-8"))
verdicts = []
for pattern in patterns:
    try:
        re2.compile(pattern)
        verdict = None
    except re2.error as error:
        verdict = str(error)
    verdicts.append({"pattern": pattern, "re2": verdict})
text = json.dumps(verdicts, ensure_ascii=False, indent=1) + "\n"
(here / "verdicts.json").write_text(text, encoding="utf-8")
print(f"{len(verdicts)} verdicts, {sum(v['re2'] is None for v in verdicts)} accepted")
