"""Shell completion: the scripts for bash, zsh and fish, and completions of commands, ruleset
references and spaces, asked the way a shell asks (argcomplete's protocol, in a subprocess)."""

import os
import subprocess
import sys

import pytest


def _complete(line: str, tmp_path) -> list[str]:
    out = tmp_path / "completions"
    env = dict(os.environ, COMP_LINE=line, COMP_POINT=str(len(line)), _ARGCOMPLETE="1",
               _ARGCOMPLETE_SHELL="bash", _ARGCOMPLETE_STDOUT_FILENAME=str(out))
    subprocess.run([sys.executable, "-m", "ruleslang", *line.split()[1:]], env=env, capture_output=True,
                   timeout=120, check=False)
    return [w.strip() for w in out.read_text().split("\x0b") if w.strip()]


@pytest.mark.parametrize("shell, marker", [("bash", "complete "), ("zsh", "compdef"), ("fish", "complete ")])
def test_the_script_of_each_shell(shell, marker):
    done = subprocess.run([sys.executable, "-m", "ruleslang", "completion", shell], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and marker in done.stdout and "ruleslang" in done.stdout


def test_commands_refs_and_spaces_complete(tmp_path):
    assert _complete("ruleslang pl", tmp_path) == ["play"]
    assert _complete("ruleslang check aar/commerce-r", tmp_path) == ["aar/commerce-raiding@1", "aar/commerce-raiding@2"]
    # a space of the rulesets' map, escaped for the shell
    assert _complete("ruleslang odds --ruleset aar/base@1 --at Ukr", tmp_path) == ["Ukraine\\ S.S.R."]
    assert "aar" in _complete("ruleslang map show a", tmp_path)
