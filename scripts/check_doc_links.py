#!/usr/bin/env python3
"""Every document the project cites exists (issue 21, "Documents that exist").

Checks, from the repository root: the relative links of README.md and docs/*.md (anchors
dropped), and every `docs/<name>.md` named in the code, data, tests, web page and docs. Prints each
missing target with where it is cited; exits 1 when there is one.

Usage: python3 scripts/check_doc_links.py [REPO_ROOT]
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent)
missing = []

link = re.compile(r"\]\(([^)\s]+)\)")
for md in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
    for n, line in enumerate(md.read_text(encoding="utf-8").splitlines(), 1):
        for target in link.findall(line):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = (md.parent / target.split("#")[0]).resolve()
            if not path.exists():
                missing.append(f"{md.relative_to(root)}:{n}: {target}")

cited = re.compile(r"(?<![A-Za-z0-9_/.-])docs/[A-Za-z0-9_.-]+\.md")
folders = ["README.md", "docs", "src", "include", "cli", "server", "python", "data", "web",
           "tests/cli", "tests/unit", "tests/web", "scripts", "bench"]
for folder in folders:
    base = root / folder
    files = [base] if base.is_file() else [p for p in base.rglob("*") if p.is_file()]
    for f in files:
        if "node_modules" in f.parts or f.suffix not in {".md", ".cpp", ".hpp", ".toml", ".py",
                                                         ".js", ".mjs", ".html", ".sh", ".txt"}:
            continue
        for n, line in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for target in cited.findall(line):
                if not (root / target).exists():
                    missing.append(f"{f.relative_to(root)}:{n}: {target}")

for m in missing:
    print(f"missing: {m}")
print(f"{len(missing)} missing document(s)")
sys.exit(1 if missing else 0)
