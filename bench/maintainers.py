"""Maintainers' figures on the full shared archive (python -m bench.maintainers).

Why: issue 12 asks how long a maintainer waits. A save of a rule text end to end (the edit
service with its hashes, references and cache purge; then the index following it; then the
page showing it), `import_rules --replace` of the current release with maintainers' work on
it, and the admin's publish preview (the real import, rolled back) of the current release, as
a replacement and as a new release. Its own throwaway database, like the other benches.
`--last N` imports only the last N releases (quicker; the replace and preview figures depend
on the release and its neighbours, not on the archive's length; `make bench` uses --last 8).
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from bench.environment import throwaway_var_dir
from bench.measure import figure


def main() -> int:
    last = None
    if "--last" in sys.argv:
        last = int(sys.argv[sys.argv.index("--last") + 1])
    with throwaway_var_dir("maintainers-bench-") as var_dir:
        return run(var_dir, last)


def run(var_dir: Path, last: int | None) -> int:
    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client

    from kb.archive import editing
    from kb.archive.publishing import preview_release
    from kb.models import Release, RuleNumber, RuleVersion
    from search.indexing import drain, rebuild

    cr_en = Path(settings.KB_DATA_DIR) / "cr" / "en"
    if not cr_en.is_dir():
        print(f"no shared data at {cr_en}: nothing to measure", file=sys.stderr)
        return 1
    files = sorted(cr_en.glob("*.txt"))[-last:] if last else sorted(cr_en.glob("*.txt"))
    call_command("migrate", verbosity=0)
    t = time.perf_counter()
    call_command("import_rules", *map(str, files), verbosity=0)
    figure(f"import {len(files)} releases (setup)", f"{time.perf_counter() - t:.1f} s")
    t = time.perf_counter()
    rebuild()
    figure("index build (setup)", f"{time.perf_counter() - t:.1f} s")

    date = Release.objects.latest("effective_date").effective_date
    current = RuleVersion.objects.as_of(date)

    def version(number: str) -> RuleVersion:
        return current.get(lineage_id=RuleNumber.objects.as_of(date).get(number=number).lineage_id)

    # A save of a rule text, end to end.
    client = Client()
    client.get("/en/rules/602.2a/")  # warm: a page a reader has just seen
    v = version("602.2a")
    t = time.perf_counter()
    editing.edit_rule_version(version=v, user="bench", text_en=v.text_en + " (Bench edit.)")
    service = time.perf_counter() - t
    t = time.perf_counter()
    drain()
    index = time.perf_counter() - t
    t = time.perf_counter()
    shown = "(Bench edit.)" in client.get("/en/rules/602.2a/").content.decode()
    page = time.perf_counter() - t
    figure("save of a rule text: service (hashes, refs, cache)", f"{service * 1000:.0f} ms")
    figure("  then the index follows (drain)", f"{index * 1000:.0f} ms")
    figure("  then the page shows it" + ("" if shown else " (NOT SHOWN)"), f"{page * 1000:.0f} ms")
    t = time.perf_counter()
    editing.edit_rule_version(version=v, user="bench", text_fr="Texte du banc d’essai.")
    drain()
    figure("save of a French text, index included", f"{(time.perf_counter() - t) * 1000:.0f} ms")

    # Maintainers' work on the current release: French texts and added examples.
    numbers = list(
        RuleNumber.objects.as_of(date).filter(kind="subrule").values_list("number", flat=True)
    )[::20]
    t = time.perf_counter()
    for number in numbers:
        target = version(number)
        editing.edit_rule_version(version=target, user="bench", text_fr=f"Texte de {number}.")
        editing.add_example(version=target, user="bench", text_en=f"Example: Bench {number}.")
    figure(
        f"maintainers' work on {len(numbers)} rules (setup)",
        f"{time.perf_counter() - t:.1f} s",
    )

    latest = files[-1]
    text = latest.read_text(encoding="utf-8")
    changed = text.replace("is identical to the process", "is the same as the process")
    t = time.perf_counter()
    preview = preview_release(data=changed.encode(), source=latest.name)
    figure(
        "publish preview of the current release (replace)",
        f"{time.perf_counter() - t:.1f} s ({len(preview.maintainer)} maintainer items)",
    )
    new = re.sub(r"effective as of \w+ \d+, \d{4}", "effective as of January 24, 2099", changed)
    t = time.perf_counter()
    preview_release(data=new.encode(), source="new.txt")
    figure("publish preview of it as a new release", f"{time.perf_counter() - t:.1f} s")
    replaced = var_dir / latest.name
    replaced.write_text(changed, encoding="utf-8")
    t = time.perf_counter()
    call_command("import_rules", str(replaced), "--replace", verbosity=0)
    figure(
        "import_rules --replace of the current release",
        f"{time.perf_counter() - t:.1f} s (maintainers' work on {len(numbers)} rules)",
    )
    kept = sum(1 for n in numbers if version(n).text_fr == f"Texte de {n}.")
    figure("  French texts carried over", f"{kept} of {len(numbers)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
