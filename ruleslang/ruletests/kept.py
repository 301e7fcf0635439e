"""Rule tests whose results are kept between runs: a ruleset whose files, and the package, are as
they were when all its tests last passed gets those results back, marked cached, without loading
the ruleset or running a test (as `go test` replays a package's passing run). A run with a failure
or an error is not kept, so it runs again; `--no-cache` runs everything."""

from __future__ import annotations

from dataclasses import dataclass, field

from ruleslang.base import reads
from ruleslang.base.diagnostics import Diagnostic
from ruleslang.ruletests.runner import TestResult, TestRunner
from ruleslang.workspace.kept import Keeper, SpanTable


@dataclass
class RulesetRun:
    """The tests of one REF: their results, whether they came from the cache, the loaded ruleset
    (None when they came from the cache or it does not load) and its diagnostics when it does not."""

    ref: str
    results: list[TestResult]
    cached: bool = False
    loaded: object | None = None
    load_errors: list[Diagnostic] = field(default_factory=list)


def run_tests(runner: TestRunner, ref: str, keyword: str | None, *, keeper: Keeper | None) -> RulesetRun:
    """The tests of `ref` (with `keyword`, those whose title holds it): the results `keeper` kept
    when it has them and they are still good, else run (and kept when every test passed)."""
    entry = keeper.entry("test", ref, keyword or "") if keeper is not None else None
    kept = _decode(entry.load()) if entry is not None else None
    if kept is not None:
        return RulesetRun(ref, kept, cached=True)
    with reads.recording() as files:
        loaded = runner.workspace.load([ref])
        if not loaded.ok:
            return RulesetRun(ref, [], load_errors=list(loaded.diagnostics))
        results = runner.run(loaded, keyword)
    if entry is not None and all(r.status == "pass" for r in results):
        spans = SpanTable()
        entry.save(files, {"tests": [[r.ruleset, r.title, spans.encode(r.span)] for r in results],
                           "sources": spans.sources})
    return RulesetRun(ref, results, loaded=loaded)


def _decode(result) -> list[TestResult] | None:
    """The passing results a kept entry holds (None when it holds none or does not decode)."""
    if result is None:
        return None
    try:
        spans = SpanTable(result["sources"])
        return [TestResult(str(ruleset), str(title), spans.decode(span), "pass")
                for ruleset, title, span in result["tests"]]
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None
