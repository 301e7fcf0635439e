"""ruleslang: house rules for Axis & Allies-style games as versioned, checked, runnable data.

The Python API (`ruleslang.load`, `check`, `diff`, `Rules`, `RulesError`; see ruleslang/api.py and
docs/api.md) is imported on first use, so the command line does not pay for it at start-up.
"""

from ruleslang.base.version import VERSION as __version__

_API = ("load", "check", "check_each", "diff", "ruleset_diff", "Rules", "PlayedGame", "Outcome", "Checked", "new_game",
        "RulesError", "save", "resume", "ResumedGame", "list_rulesets", "Listed", "run_tests", "TestRun", "workspace_for")
__all__ = ["__version__", *_API]


def __getattr__(name: str):
    if name in _API:
        # start-up time: the API brings in the whole pipeline and the runtime; load it when asked
        from ruleslang import api
        return getattr(api, name)
    raise AttributeError(f"module 'ruleslang' has no attribute '{name}'")
