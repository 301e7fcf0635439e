"""Check `advice` declarations: what a ruleset tells bots, keyed on a decision's id or an input's name.

`advice proc.var(estimate: type, ...) = expr` names a decision (`procedure.variable`, as a test's
`answer` does) and gives the answer a bot gives it in the current game state. Its parameters are
not chosen by the ruleset: each names an estimate the bot works out and passes in (`ESTIMATES`),
so that a rule can weigh what only a bot can guess (how a battle will end) without naming it, or
is `options`, the options the decision offers (a list, in the rules' order).
The answer must have the decision's type (an option for `choose one`, a set of options for
`choose N` / `choose up to N`). Advice for a decision no ruleset asks is a warning: a rule that
replaces a procedure may drop a decision that a used ruleset advises on.

`advice NAME(params) = expr`, NAME without a dot, gives one of the values bots build their
estimates from (`INPUTS`: the firepower of a unit in a battle, what a territory is worth, which
units support a landing), as the ruleset's own formulas work it out; the parameters are what the
bot passes (their types are the input's). A bot reads the rules only through these: without an input's advice it takes a
neutral value (0), never an attribute by a rule's name.

Advice is read, never rolled (no dice), so asking it leaves the game's random numbers alone.
"""

from __future__ import annotations

from ruleslang.base.diagnostics import warning
from ruleslang.base.suggest import did_you_mean
from ruleslang.lang import types as T
from ruleslang.lang.check.state import CheckState
from ruleslang.lang.check.typecheck import Frame
from ruleslang.lang.syntax.statements import Choose
from ruleslang.lang.syntax.declarations import AdviceDecl

# The estimates a bot supplies to advice, by parameter name: (type, what it is).
ESTIMATES: dict[str, tuple[T.Type, str]] = {
    "win_chance": (T.NUMBER, "the chance, between 0 and 1, that the deciding player's side wins the battle "
                             "being fought (the attacker takes the space, the defender holds it)"),
}

# The parameter through which a bot passes the options a decision offers (a list of them).
OPTIONS = "options"

# The values bots build their estimates from, by name: (parameter types, result type, what it is).
INPUTS: dict[str, tuple[tuple[T.Type, ...], T.Type, str]] = {
    "firepower": ((T.UNIT, T.TEXT), T.INT,
                  "the value a unit fires at in a battle, on the side \"attacker\" or \"defender\" "
                  "(a die at or below it hits): bots simulate battles with it"),
    "territory_value": ((T.SPACE,), T.INT,
                        "what a space is worth to a bot (its production value, say): bots rank the spaces "
                        "they attack, defend, bomb and ship from by it"),
    "landing_support": ((T.UNIT,), T.BOOL,
                        "whether a bot sends one of its units along with its amphibious assaults, to the "
                        "sea zone a landing is made from (ships that bombard, say): without it, none goes"),
}


def check_advice(checker: CheckState) -> None:
    """Check every live `advice` declaration of the checker's ruleset (diagnostics into the checker)."""
    for d in checker.defs.values():
        if isinstance(d.decl, AdviceDecl):
            _check_one(checker, d.decl)


def _check_one(checker, decl: AdviceDecl) -> None:
    tc, info = checker.tc, checker.info
    frame = Frame(id(decl), info)
    info.frames[id(decl)] = frame.size
    if decl.target.step is None:
        expected = _input_params(checker, decl, frame)
    else:
        stmt = _decision(checker, decl)
        _estimate_params(checker, decl, frame, stmt)
        expected = _answer_type(checker, stmt)
    tc.frame = frame
    for let in decl.lets:
        frame.declare(let.name, tc.check(let.value), tc)
    if expected is None:
        tc.check(decl.body)
    else:
        tc.expect(decl.body, expected)
    tc.frame = None
    rolled = next((x for x in (*[let.value for let in decl.lets], decl.body) if info.is_random(x)), None)
    if rolled is not None:
        checker.error("T327", f"advice {decl.name.text} rolls dice", rolled.span,
                      hint="advice is read by bots and must leave the game's dice alone")


def _input_params(checker, decl: AdviceDecl, frame: Frame) -> T.Type | None:
    """Declare an input's parameters (checked against the input's); its result type, or None."""
    known = INPUTS.get(decl.name.text)
    params = decl.params or ()
    if known is None:
        checker.error("T328", f"advice {decl.name.text}: not a decision (procedure.variable) nor a value bots "
                              "build their estimates from", decl.name.span,
                      hint=did_you_mean(decl.name.text, list(INPUTS), n=2) or "values: " + ", ".join(INPUTS))
    else:
        want, _, _ = known
        types = tuple(checker.resolve_type(p.type) for p in params)
        if types != want:
            checker.error("T328", f"advice {decl.name.text} takes ({', '.join(map(str, want))}), "
                                  f"not ({', '.join(map(str, types))})", decl.name.span)
    for p in params:
        frame.declare(p.name, checker.resolve_type(p.type), checker.tc)
    return known[1] if known is not None else None


def _estimate_params(checker, decl: AdviceDecl, frame: Frame, stmt: Choose | None) -> None:
    """Declare a decision advice's parameters, each an estimate bots supply or the options."""
    for p in decl.params or ():
        declared = checker.resolve_type(p.type)
        known = ESTIMATES.get(p.name.text)
        if p.name.text == OPTIONS:
            want = T.ListType(_option_type(checker, stmt) or T.ANY)
            if not T.assignable(want, declared):
                checker.error("T326", f"advice {decl.name.text}: the options are a {want}, not {declared}",
                              p.type.span)
        elif known is None:
            checker.error("T326", f"advice {decl.name.text}: '{p.name.text}' is not an estimate bots supply",
                          p.name.span, hint=did_you_mean(p.name.text, list(ESTIMATES), n=2) or
                          "estimates: " + ", ".join(f"{n}: {t}" for n, (t, _) in ESTIMATES.items())
                          + f"; and {OPTIONS}, the decision's options")
        elif declared != known[0]:
            checker.error("T326", f"advice {decl.name.text}: the estimate {p.name.text} has type {known[0]}, "
                                  f"not {declared}", p.type.span)
        frame.declare(p.name, declared, checker.tc)


def _decision(checker, decl: AdviceDecl) -> Choose | None:
    """The `choose` the advice is on; None (after a warning) when no ruleset asks it."""
    key = decl.name.text
    stmt = checker.decision_ids.get(key)
    if stmt is None:
        checker.diags.append(warning(
            "R240", f"advice for '{key}', a decision no ruleset of this composition asks", decl.name.span,
            hint=did_you_mean(key, list(checker.decision_ids)) or
            "a decision is named procedure.variable, after 'let variable = choose ...'"))
    return stmt


def _option_type(checker, stmt: Choose | None) -> T.Type | None:
    """The type of one option of the decision (None when unknown)."""
    want = checker.info.types.get(id(stmt.options)) if stmt is not None else None
    return T.element_type(T.strip_optional(want)) if want is not None else None


def _answer_type(checker, stmt: Choose | None) -> T.Type | None:
    """The type of the decision's answer (None when no ruleset asks it)."""
    if stmt is None:
        return None
    elem = _option_type(checker, stmt) or T.ANY
    return elem if stmt.mode == "one" else T.SetType(elem)
