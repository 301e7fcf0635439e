"""The command line in front of a user's mistakes: unusable paths, bad numbers, JSON errors,
long source lines and repeated diagnostics each get a located, coded message, never a traceback."""

import argparse
import json
from pathlib import Path

import pytest

from ruleslang.cli.app import build_parser
from ruleslang.base.diagnostics import error, render_text
from ruleslang.base.source import Source, Span

from conftest import FIXTURES, write_rulesets
from test_cli import run_cli

TINY_GAME = Path(__file__).parent / "board" / "fixtures" / "tiny_game.xml"


def run_json(argv):
    code, output = run_cli(argv)
    return code, json.loads(output)["diagnostics"]


# ---------------------------------------------------------------- output paths (U107, U108)


@pytest.mark.parametrize("target", ["afile", "/dev/null/x"])
def test_import_refuses_an_output_that_is_not_a_folder(tmp_path, monkeypatch, target):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("kept\n")
    code, output = run_cli(["import-triplea", str(TINY_GAME), "-o", target])
    assert code == 2 and "error[U107]" in output and target in output and "internal error" not in output
    assert (tmp_path / "afile").read_text() == "kept\n"


def test_import_reports_a_file_in_the_way_inside_the_folder(tmp_path):
    (tmp_path / "maps").write_text("")
    code, output = run_cli(["import-triplea", str(TINY_GAME), "-o", str(tmp_path)])
    assert code == 2 and "error[U107]" in output and "not a folder" in output


def test_map_show_refuses_an_unwritable_output():
    code, output = run_cli(["map", "show", "aar", "-o", "/dev/null/x.svg"])
    assert code == 2 and "error[U107]" in output and "/dev/null is not a folder" in output


def test_map_show_refuses_an_output_in_a_missing_folder(tmp_path):
    code, output = run_cli(["map", "show", "aar", "-o", str(tmp_path / "no" / "x.html")])
    assert code == 2 and "there is no folder" in output


@pytest.mark.parametrize("name", ["x.png", "x"])
def test_map_show_writes_only_svg_or_html(tmp_path, name):
    code, output = run_cli(["map", "show", "aar", "-o", str(tmp_path / name)])
    assert code == 2 and "error[U108]" in output and ".svg or .html" in output
    assert not (tmp_path / name).exists()


# ---------------------------------------------------------------- paths given as maps, scenarios, REFs


def test_a_missing_map_file_is_no_such_file(tmp_path):
    code, output = run_cli(["map", "show", str(tmp_path / "nonexist.yaml")])
    assert code == 1 and "error[D608]" in output and "no such file" in output and "unknown map" not in output


def test_a_folder_as_map_or_scenario_says_it_is_a_folder(tmp_path):
    code, output = run_cli(["map", "show", str(tmp_path)])
    assert code == 1 and "is a folder, not a file" in output
    code, output = run_cli(["eval", "board/base@1", "1", "--scenario", str(tmp_path), "--rulesets", str(FIXTURES)])
    assert code == 1 and "is a folder, not a file" in output and "unknown scenario" not in output


def test_a_named_map_or_scenario_is_still_unknown():
    code, output = run_cli(["map", "show", "nonexist"])
    assert "error[D629]" in output
    code, output = run_cli(["eval", "board/base@1", "1", "--scenario", "board/nonexist", "--rulesets", str(FIXTURES)])
    assert "error[D639]" in output


@pytest.mark.parametrize("command, says", [(["check"], "is a folder with no rulesets in it"),
                                           (["test"], "is a folder with no rulesets in it"),
                                           (["eval", "_", "1"], "is a folder, not a .rules file")])
def test_a_folder_as_ref_says_it_is_a_folder(tmp_path, command, says):
    # check and test run the rulesets of a folder given as a REF; this one holds none
    argv = [command[0], str(tmp_path), *command[2:]]
    code, output = run_cli(argv)
    assert code == 1 and "error[S002]" in output and says in output


@pytest.mark.parametrize("command", [["check", "board/base@1"], ["list"], ["map", "show", "aar"]])
def test_a_missing_rulesets_folder_is_a_usage_error(tmp_path, command):
    code, output = run_cli([*command, "--rulesets", str(tmp_path / "nonexistent")])
    assert code == 2 and "error[U109]" in output and "nonexistent" in output


# ---------------------------------------------------------------- JSON errors, budgets


def test_call_of_an_unknown_name_is_json_with_a_code():
    code, diagnostics = run_json(["call", "board/base@1", "capp", "Isle", "--format", "json",
                                  "--rulesets", str(FIXTURES)])
    assert code == 2
    (d,) = diagnostics
    assert d["code"] == "U110" and d["file"] is None and d["line"] is None and d["hint"] == "did you mean 'cap'?"


def test_call_with_the_wrong_number_of_arguments_is_json_with_a_code():
    code, diagnostics = run_json(["call", "board/base@1", "cap", "--format", "json", "--rulesets", str(FIXTURES)])
    assert code == 2 and [d["code"] for d in diagnostics] == ["U111"]
    assert "takes 1 argument" in diagnostics[0]["message"]


@pytest.mark.parametrize("budget", ["0", "-5", "many"])
def test_a_budget_is_a_positive_whole_number(budget):
    code, output = run_cli(["eval", "board/base@1", "1", "--budget", budget, "--rulesets", str(FIXTURES)])
    assert code == 2 and "positive whole number" in output
    code, diagnostics = run_json(["call", "board/base@1", "cap", "Isle", "--budget", budget, "--format", "json"])
    assert code == 2 and diagnostics[0]["code"] == "U100"


# ---------------------------------------------------------------- empty data files


def test_an_empty_map_file_is_reported_with_its_name(tmp_path):
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    code, output = run_cli(["map", "show", str(empty)])
    assert code == 1 and output.startswith(f"{empty}:1:1: error[D610]")


def test_an_empty_scenario_is_the_start_where_the_command_gives_the_map(tmp_path):
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    code, output = run_cli(["eval", "board/base@1", "1", "--scenario", str(empty), "--rulesets", str(FIXTURES)])
    assert (code, output) == (0, "1\n")
    write_rulesets(tmp_path, {"t/nomap@1": 'ruleset t/nomap@1\ntitle "no map"\nconstant c = 3\n'})
    code, output = run_cli(["eval", "t/nomap@1", "c", "--scenario", str(empty), "--rulesets", str(tmp_path)])
    assert code == 1 and output.startswith(f"{empty}:1:1: error[D630]")


# ---------------------------------------------------------------- help


def _subparsers(parser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield name, sub
                yield from ((f"{name} {n}", s) for n, s in _subparsers(sub))


def test_every_subcommand_explains_itself_and_every_option():
    for name, sub in _subparsers(build_parser()):
        assert sub.description, f"{name} has no description"
        for action in sub._actions:
            if not isinstance(action, argparse._SubParsersAction):
                assert action.help, f"{name}: {action.option_strings or action.dest} has no help"


# ---------------------------------------------------------------- import-triplea's warnings


def test_import_shows_the_first_warnings_by_default(tmp_path):
    code, output = run_cli(["import-triplea", str(TINY_GAME), "-o", str(tmp_path)])
    assert code == 0 and output.count("warning[") == 5 and "more warnings (-v shows them all)" in output


def test_import_verbose_shows_every_warning_and_quiet_only_a_count(tmp_path):
    _, verbose = run_cli(["import-triplea", str(TINY_GAME), "-o", str(tmp_path), "-v"])
    count = verbose.count("warning[")
    assert count > 5 and "more warnings" not in verbose
    code, quiet = run_cli(["import-triplea", str(TINY_GAME), "-o", str(tmp_path), "-q"])
    assert code == 0 and "warning[" not in quiet and "untranslated:" not in quiet
    assert f"{count} warnings" in quiet and "wrote" in quiet


# ---------------------------------------------------------------- rendering


def test_a_long_source_line_is_clipped_around_the_caret():
    text = "x" * 10_000 + "BAD" + "y" * 10_000
    out = render_text(error("D601", "bad", Span(Source("save.json", text), 10_000, 10_003)))
    _, source_line, caret_line = out.splitlines()
    assert len(source_line) < 140 and source_line.count("…") == 2
    column = caret_line.index("^")
    assert source_line[column:column + 3] == "BAD" and caret_line.endswith("^~~")


def test_a_problem_without_a_file_names_the_command():
    assert render_text(error("U110", "no such name")) == "ruleslang: error[U110]: no such name"


def test_a_diagnostic_of_a_used_ruleset_is_printed_once(tmp_path):
    write_rulesets(tmp_path, {
        "t/six@1": 'ruleset t/six@1\ntitle "t"\nuses board/base@1\nformula f(x: int) -> int = count(neighbours("Atlantis")) + x\n'
                   'formula g() -> int = f(1) + f(2)\n',
        "t/seven@1": 'ruleset t/seven@1\ntitle "t"\nuses t/six@1\n',
    })
    roots = ["--rulesets", str(tmp_path), "--rulesets", str(FIXTURES)]
    for command in ("check", "test"):
        _, output = run_cli([command, "t/six@1", "t/seven@1", *roots])
        assert output.count("error[T305]") == 1, command
        code, out = run_cli([command, "t/six@1", "t/seven@1", *roots, "--format", "json"])
        assert [d["code"] for d in json.loads(out)["diagnostics"]] == ["T305"], command


# ---------------------------------------------------------------- one command's parser

def _described(action) -> tuple:
    return (type(action), action.option_strings, action.dest, action.default, action.nargs, action.help,
            None if action.choices is None else list(action.choices))


def test_a_command_parsed_alone_has_the_help_and_options_of_the_whole_parser():
    # `main` builds only the parser of the command a run names: each must be the whole parser's own
    whole = dict(_subparsers(build_parser()))
    top_level = [name for name in whole if " " not in name]
    for name in top_level:
        alone = dict(_subparsers(build_parser(only=name)))
        assert set(alone) == {n for n in whole if n == name or n.startswith(name + " ")}, name
        for sub, parser in alone.items():
            assert parser.format_help() == whole[sub].format_help(), sub
            assert [_described(a) for a in parser._actions] == [_described(a) for a in whole[sub]._actions], sub


def test_a_run_builds_only_the_parser_of_the_command_it_names(monkeypatch):
    import ruleslang.cli.app as app

    built = []
    real = app.build_parser

    def recording(only=None):
        built.append(only)
        return real(only)

    monkeypatch.setattr(app, "build_parser", recording)
    monkeypatch.delenv("_ARGCOMPLETE", raising=False)
    code, output = run_cli(["list", "--format", "json"])
    assert code == 0 and '"rulesets"' in output and built == ["list"]
    code, _ = run_cli(["no-such-command"])  # an unknown command: the whole parser, to list the known ones
    assert code == 2 and built[-1] is None
    class Answered(Exception):
        pass

    def completing(parser):  # stands for argcomplete, which answers and exits
        raise Answered([name for name, _ in _subparsers(parser)])

    monkeypatch.setattr(app, "complete", completing)
    monkeypatch.setenv("_ARGCOMPLETE", "1")  # a shell's completion request needs every command
    with pytest.raises(Answered) as answered:
        app.main(["call"])
    assert built[-1] is None and {"call", "play", "map show"} <= set(answered.value.args[0])
