"""Print the Python the code generator writes for definitions and procedures of a composition.

    python tools/show_code.py REF [REF...] --name NAME [--name NAME ...] [--root DIR ...]

NAME is a formula, modifier list or advice (its generated function), or a phase, step, hook,
constraint (the generated executor of its block). Values other than whole numbers, true, false and
none appear as `_k<n>` (the function's globals: texts, spans, tables); each is listed under the
source with what it holds. What the generator left to the closures is listed at the end.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ruleslang.lang.eval.program import CompiledProgram  # noqa: E402
from ruleslang.lang.syntax.declarations import (ConstraintDecl, HookDecl, PhaseDecl, RuntimeProcedure, StepDecl)  # noqa: E402
from ruleslang.workspace.compositions import Workspace  # noqa: E402


def generated(compiled: CompiledProgram, name: str):
    """The generated function of `name`, or None when it runs on the closures."""
    decl = compiled.symbols[name].decl
    procs = compiled.procedures
    if isinstance(decl, (PhaseDecl, StepDecl)):
        if isinstance(decl.procedure, RuntimeProcedure):
            return None
        return procs.executor(decl.procedure.body, name, decl)
    if isinstance(decl, HookDecl):
        return procs.hook_parts(decl)[2]
    if isinstance(decl, ConstraintDecl):
        return procs.executor(decl.body, name, decl)
    return compiled.callable(name)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("refs", nargs="+", help="the rulesets of the composition")
    parser.add_argument("--name", action="append", required=True, help="a definition or procedure to show")
    parser.add_argument("--root", action="append", default=[], help="a folder of rulesets besides the shipped ones")
    args = parser.parse_args(argv)
    loaded = Workspace(args.root).load(args.refs)
    if not loaded.ok:
        for d in loaded.diagnostics:
            print(d, file=sys.stderr)
        return 1
    compiled = CompiledProgram(loaded.program, backend="codegen")
    for name in args.name:
        if name not in compiled.symbols:
            print(f"# {name}: no such definition", file=sys.stderr)
            return 1
        fn = generated(compiled, name)
        source = getattr(fn, "generated_source", None)
        print(f"# ---- {name}")
        if source is None:
            print("# runs on the closures")
            continue
        print(source)
        for key, value in sorted(fn.__globals__.items()):
            if key.startswith("_k"):
                print(f"#   {key} = {value!r}"[:160])
    for name, why in compiled.not_generated.items():
        print(f"# not generated: {name}: {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
