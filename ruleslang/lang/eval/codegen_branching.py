"""Branching runs generated: the statements of a block of a battle step as Python source.

A branching run (`branching.py`) is continuation-passing: each statement is a closure `run(env,
p, k)` that calls `k(p')` once per outcome, and a block chains them with a continuation per
statement. Most statements of a step do not fork on the way most runs take them: a `let` that
rolls nothing, or whose rolled values were merged already, a `let` of a rolled count whose reads
hold no rolled value not looked at yet (its outcomes become a `Deferred`: no fork), an `if` whose
condition rolls nothing. This module writes a block as functions `b<i>(env, p, k)`, the
statements from the `i`th on written out one after the other, those that go straight on as
Python statements in line (lets are slot writes, conditions an `if`), so the block runs without
a closure call and a continuation per statement.

Each statement written in line does what its closure does on that way, in the same order (the
`Lazy` values it reads made ready one after the other, the same distributions asked of the
world, the same products and sums of probabilities: every float the same). Where the closure
would fork (a value it reads is a rolled value not looked at yet, a value that cannot be a key)
the generated code hands the statement to its closure as it stands, continued by the function of
the next statement, before it has evaluated anything of its own: the closure then does exactly
what it would have done. A statement of another kind (a `hit`, a `for`, a `run`, a rolled
condition) is its closure, continued the same way.

What the closures give the writer: each executor of `branching.py` that may be written in line
carries `inline`, a tuple naming its kind and the parts it is made of.

Safety: no text of a rule reaches the source; slots are numbers and everything else (the
closures, the plain functions, the nodes) is handed in through the globals under generated names.
"""

from __future__ import annotations

from types import CodeType
from typing import Any, Callable

from ruleslang.lang.eval.branching_values import Deferred, Lazy
from ruleslang.lang.eval.codegen_runtime import safe_label

# Compiled code by (source, label): the Branchings of a process (one per game and kind of number)
# write the same source for the same rules. Bounded: emptied when full.
_CODE: dict[tuple[str, str], CodeType] = {}
_CODE_LIMIT = 1024


def write_block(branching, stmts: list, owner: str) -> Callable | None:
    """The generated executor `fn(env, p, k)` of a block whose statements' closures are `stmts`
    (`branching` the `Branching` they belong to), or None when none of them can be written in
    line (the closures' own chaining serves then)."""
    if not any(getattr(x, "inline", None) is not None for x in stmts):
        return None
    return _Writer(branching, stmts, f"<ruleslang branching:{safe_label(owner)}>").rest(0)


class _Writer:
    """The functions of one block, `b<i>` each written and compiled when first asked for
    (`rest`): the first with the block, the others when a statement hands over to its closure or
    forks, which most runs of most steps never do (writing every one at once made the source
    grow with the square of the block's length, and compiling it cost more than a game's runs
    of it saved)."""

    def __init__(self, branching, stmts: list, label: str):
        self.stmts, self.label = stmts, label
        self.ns: dict[str, Any] = {
            "_B": branching, "_Lazy": Lazy, "_Deferred": Deferred, "_getattr": getattr,
            "_one": branching.one, "_prob": branching.prob, "_dist": branching._distribution,
            "_forced": branching._forced, "_merged": branching._merged, "_rest": self.rest,
        }
        self.names: dict[int, str] = {}  # id of a value handed in -> its global
        self.functions: dict[int, Callable] = {}

    def name(self, prefix: str, value) -> str:
        """A global of the generated code holding `value` (one per value)."""
        key = self.names.get(id(value))
        if key is None:
            key = self.names[id(value)] = f"{prefix}{len(self.ns)}"
            self.ns[key] = value
        return key

    def rest(self, i: int) -> Callable:
        """`b<i>(env, p, k)`: the statements from the `i`th on, then `k`."""
        found = self.functions.get(i)
        if found is None:
            source = "\n".join(self.function(i)) + "\n"
            code = _CODE.get((source, self.label))
            if code is None:
                if len(_CODE) >= _CODE_LIMIT:
                    _CODE.clear()
                code = _CODE[(source, self.label)] = compile(source, self.label, "exec")
            exec(code, self.ns)  # noqa: S102 - our own source: no rule text reaches it (the module's docstring)
            found = self.functions[i] = self.ns[f"b{i}"]
            found.generated_source = source  # for tests and for reading what was generated
        return found

    def then(self, j: int) -> str:
        """The continuation of statement `j`: the block's own after its last statement."""
        return "k" if j == len(self.stmts) - 1 else f"lambda q: _rest({j + 1})(env, q, k)"

    def function(self, i: int) -> list[str]:
        """The source lines of `b<i>`."""
        out = [f"def b{i}(env, p, k):"]
        body: list[str] = []
        j = i
        n = len(self.stmts)
        while j < n:
            x = self.stmts[j]
            spec = getattr(x, "inline", None)
            closure = self.name("_x", x)
            hand_over = f"return {closure}(env, p, {self.then(j)})"
            if spec is None:
                body.append(hand_over)
                break
            kind = spec[0]
            if kind == "plain let":
                body += self.plain_let(spec)
            elif kind == "let":
                body += self.let(spec, hand_over)
            elif kind == "rolled let":
                body += self.rolled_let(spec, hand_over)
            elif kind == "plain":
                body += self.ready(spec[2], hand_over)
                body.append(f"{self.name('_f', spec[1])}(env)")
            elif kind == "if":
                ends, lines = self.if_(spec, closure, j)
                body += lines
                if ends:
                    break
            elif kind == "hit":
                body += self.hit(spec, hand_over, j)
            j += 1
        else:
            body.append("k(p)")
        return out + ["    " + line for line in body]

    def ready(self, reads: tuple, hand_over: str | None) -> list[str]:
        """`Branching._ready` of `reads` written out, then (unless `hand_over` is None) the hand-over
        to the closure when one of them is a rolled value not looked at yet."""
        lines = []
        for s in reads:
            lines += [f"v = env[{s}]",
                      "if type(v) is _Lazy:",
                      f"    env[{s}] = _forced(v, env[0], None)"]
        if reads and hand_over is not None:
            test = " or ".join(f"type(env[{s}]) is _Deferred" for s in reads)
            lines += [f"if {test}:", "    " + hand_over]
        return lines

    def plain_let(self, spec) -> list[str]:
        """A `let` that rolls nothing and reads no local (`let_plain`)."""
        _kind, node, slot, f = spec
        n, fn = self.name("_n", node), self.name("_f", f)
        return ["if _getattr(_B.world, 'deferring', False):",
                f"    env[{slot}] = _Lazy({n}, {fn}, list(env), (), _B.world.deferred())",
                "else:",
                f"    env[{slot}] = {fn}(env)"]

    def let(self, spec, hand_over: str) -> list[str]:
        """A `let` that rolls nothing and reads locals (`_Let`'s `let` on its way without a fork)."""
        _kind, node, slot, f, reads = spec
        n, fn = self.name("_n", node), self.name("_f", f)
        none_deferred = " and ".join(f"type(env[{s}]) is not _Deferred" for s in reads)
        lines = [f"if _getattr(_B.world, 'deferring', False) and {none_deferred}:",
                 f"    env[{slot}] = _Lazy({n}, {fn}, list(env), {reads!r}, _B.world.deferred())",
                 "else:"]
        lines += ["    " + line for line in self.ready(reads, hand_over)]
        lines.append(f"    env[{slot}] = {fn}(env)")
        return lines

    def rolled_let(self, spec, hand_over: str) -> list[str]:
        """A `let` whose value rolls dice (`_Let`'s `let`, `outcomes` with no rolled value to
        follow first): its outcomes merged into the slot, a `Deferred` when more than one."""
        _kind, node, slot, xf, reads = spec
        n, xn = self.name("_n", node), self.name("_xf", xf)
        lines = self.ready(reads, hand_over)
        lines += ["try:",
                  f"    d = _dist({xn}, {n}, env, {reads!r})",
                  "    found = {}",
                  "    for v, w in d.weights.items():",
                  "        if w:",
                  "            found[v] = found.get(v, 0) + _one * _prob(w, d.total)",
                  "except TypeError:",
                  "    " + hand_over,
                  "found = list(found.items())",
                  f"env[{slot}] = found[0][0] if len(found) == 1 else _Deferred(found)"]
        return lines

    def next(self, j: int, p: str) -> str:
        """The call that goes on after statement `j` with probability `p`."""
        return f"k({p})" if j == len(self.stmts) - 1 else f"_rest({j + 1})(env, {p}, k)"

    def hit(self, spec, hand_over: str, j: int) -> list[str]:
        """A `hit` whose count rolls nothing itself (`_HitEffect`'s `hit`): the count's rolled
        values merged by the count (`Branching._merged`), then the hit made (or deferred) and the
        rest run once per count, each from the state before (`Branching._fork`)."""
        _kind, (f, reads), later, needed, make = spec
        fn, mk = self.name("_f", f), self.name("_h", make)
        lines = []
        if needed:
            test = " or ".join(f"type(env[{s}]) is _Deferred" for s in needed)
            lines += [f"if {test}:", "    " + hand_over]
        if not reads:
            return lines + [f"{mk}(env, {fn}(env))"]
        lines += self.ready(reads, None)
        live = [s for s in reads if s in later]
        if live:
            test = " or ".join(f"type(env[{s}]) is _Deferred" for s in live)
            lines += [f"if {test}:", "    " + hand_over]
        lines += [f"pend = [s for s in {reads!r} if type(env[s]) is _Deferred]",
                  "if pend:",
                  f"    found = _merged(env, pend, {fn})",
                  "    if found is None:",
                  "        " + hand_over,
                  "    if len(found) == 1:",
                  f"        {mk}(env, found[0][0])",
                  f"        return {self.next(j, 'p * found[0][1]')}",
                  "    saved_env = list(env)",
                  "    saved = _B.world.snapshot()",
                  "    for i, (n, q) in enumerate(found):",
                  "        if i:",
                  "            env[:] = saved_env",
                  "            _B.world.restore(saved)",
                  f"        {mk}(env, n)",
                  f"        {self.next(j, 'p * q')}",
                  "    return",
                  f"{mk}(env, {fn}(env))"]
        return lines

    def if_(self, spec, closure: str, j: int) -> tuple[bool, list[str]]:
        """An `if` whose conditions roll nothing (`run_if`): (whether every way leaves the function,
        its lines). A condition that reads a rolled value not looked at yet hands the statement
        to its closure from that branch on."""
        _kind, branches, otherwise = spec
        then = self.then(j)
        lines = []
        for i, (f, reads, body) in enumerate(branches):
            lines += self.ready(reads, f"return {closure}(env, p, {then}, {i})")
            lines += [f"if {self.name('_c', f)}(env):",
                      f"    return {self.name('_b', body)}(env, p, {then})"]
        if otherwise is not None:
            lines.append(f"return {self.name('_e', otherwise)}(env, p, {then})")
            return True, lines
        return False, lines
