"""Versions of a ruleset are looked up across every root: a revision in a user's folder finds the
shipped versions it revises, and `family/name` means the newest version in any root."""

from __future__ import annotations

import textwrap

import pytest

from ruleslang.lang.compose.loader import Loader
from ruleslang.base.paths import packaged_root

from test_cli import run_cli

THIRD_TEXT = """\
    ruleset aar/commerce-raiding@3
    title "Commerce raiding, third text (multiplier 2)"
    note "multiplier 3 -> 2"
    revises aar/commerce-raiding@2

    override constant multiplier = 2

    test "the UK example under the change: min(2 x 8, 30) = 16":
        scenario aar/start with {economy: {British: {income: 30}}}
        expect raid_cap("UK") == 16
"""


@pytest.fixture
def user_folder(tmp_path, monkeypatch):
    """A user's ruleset folder holding only a new revision of a shipped house rule."""
    monkeypatch.chdir(tmp_path)  # no ./rulesets of a checkout in the way
    folder = tmp_path / "r2"
    (folder / "aar").mkdir(parents=True)
    (folder / "aar" / "commerce-raiding@3.rules").write_text(textwrap.dedent(THIRD_TEXT), encoding="utf-8")
    return str(folder)


def test_a_revision_in_a_user_folder_checks_against_the_shipped_versions(user_folder):
    assert run_cli(["check", "aar/commerce-raiding@3", "--rulesets", user_folder]) == (0, "")
    assert run_cli(["check", "aar/commerce-raiding@1", "--rulesets", user_folder]) == (0, "")


def test_a_ref_without_a_version_is_the_newest_across_roots(user_folder):
    code, output = run_cli(["eval", "aar/commerce-raiding", "multiplier", "--rulesets", user_folder])
    assert (code, output.strip()) == (0, "2")


def test_the_revision_tests_and_diffs_against_the_shipped_one(user_folder):
    code, output = run_cli(["test", "aar/commerce-raiding@3", "--rulesets", user_folder])
    assert code == 0 and output.splitlines()[-1] == "1 passed, 0 failed"
    code, output = run_cli(["diff", "aar/commerce-raiding@2", "aar/commerce-raiding@3", "--rulesets", user_folder])
    assert code == 0
    assert "changed constant multiplier" in output and "3 -> 2" in output


def test_a_missing_version_lists_the_versions_of_every_root(user_folder):
    code, output = run_cli(["check", "aar/commerce-raiding@9", "--rulesets", user_folder])
    assert code == 1 and "error[S003]" in output and "versions available: @1, @2, @3" in output


def test_an_earlier_root_shadows_the_same_version_in_a_later_one(tmp_path):
    (tmp_path / "aar").mkdir()
    own = tmp_path / "aar" / "commerce-raiding@2.rules"
    own.write_text("ruleset aar/commerce-raiding@2\n", encoding="utf-8")
    versions = dict(Loader([tmp_path, packaged_root()]).versions("aar", "commerce-raiding"))
    assert versions[2] == own.resolve()
    assert versions[1] == (packaged_root() / "aar" / "commerce-raiding@1.rules").resolve()


def test_a_header_read_from_the_first_lines_is_the_header_of_the_whole_file(tmp_path):
    folder = tmp_path / "x"
    folder.mkdir()
    (folder / "wide@1.rules").write_text(textwrap.dedent("""\
        # a comment before the header
        ruleset x/wide@1
        title "A title"

        uses aar/base@1, \\
            aar/commerce-raiding@1
        formula f() -> int = 1
        title_like_name = 2
    """), encoding="utf-8")
    loader = Loader([packaged_root(), tmp_path])
    for ref, path in loader.all_rulesets():
        if ref == "x/wide@1":
            header = loader.header(path)
            assert header.title == "A title" and len(header.uses) == 2
            continue
        assert _header_text(loader.header(path)) == _header_text(Loader([packaged_root()]).load(path).module.header), ref


def _header_text(header) -> tuple:
    refs = [header.ref, header.revises, *header.uses]
    return (header.title, header.source_note, header.change_note, [r and r.text for r in refs],
            header.map and header.map.parts)
