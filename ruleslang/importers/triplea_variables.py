"""TripleA's variables: `<variableList>` and the `foreach` it drives, expanded as TripleA does.

A variable is a named list of names (`<variable name="players"><element name="Reds"/>...`); an
element naming an earlier variable (`$others$`) stands for that variable's names. Where a game
file uses them:

- an attachment with `foreach="$a$:$b$^$c$"` is repeated for each combination: the variables
  joined by `:` walk together (their lists must be equally long), and a second group after `^`
  is crossed with the first. In each copy `@a@` is replaced by that copy's name of `a`, in the
  attachment's name and `attachTo` and in its options; an option that would get an empty name
  is left out;
- a `<forEach variable="...">` inside `<sequence>` repeats the steps it holds the same way;
- `$a$` in an option value stands for the whole list, joined by `:`.

The expansion works on the element tree before anything is translated, so every copy keeps the
line and column of the element it was copied from, and every error (an unknown variable, lists
of different lengths, a malformed `foreach`) is a located D643.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable

from ruleslang.base.safexml import XmlElement

_VARIABLE_REF = re.compile(r"\$[^$:^]+\$")

Fail = Callable[[str, XmlElement], None]


def read_variables(root: XmlElement, fail: Fail) -> dict[str, list[str]]:
    """`$name$` -> its names, in the order the file declares them; nested references expanded."""
    variables: dict[str, list[str]] = {}
    section = root.first("variableList")
    if section is None:
        return variables
    for element in section.all("variable"):
        name = element.attrs.get("name", "")
        if not name:
            fail("a <variable> has no name", element)
            continue
        values: list[str] = []
        for item in element.all("element"):
            value = item.attrs.get("name", "")
            values.extend(variables.get(value, [value]))
        variables[f"${name}$"] = values
    return variables


def combinations(foreach: str, variables: dict[str, list[str]], where: XmlElement,
                 fail: Fail) -> list[dict[str, str]]:
    """The substitutions (`@name@` -> a name) a `foreach` expression stands for, in TripleA's
    order; [] after a located D643 when it is malformed or names an unknown variable."""
    groups = [group.split(":") for group in foreach.split("^")]
    if len(groups) > 2:
        fail(f"the foreach '{foreach}' has more than one '^' (TripleA crosses at most two groups)", where)
        return []
    for group in groups:
        unknown = [v for v in group if v not in variables]
        if unknown:
            fail(f"the foreach '{foreach}' names the unknown variable '{unknown[0]}'", where)
            return []
        lengths = {len(variables[v]) for v in group}
        if len(lengths) > 1:
            fail(f"the variables {', '.join(group)} of the foreach '{foreach}' walk together but "
                 "hold different numbers of names", where)
            return []

    def walk(group: list[str]) -> list[dict[str, str]]:
        size = len(variables[group[0]])
        return [{"@" + v.strip("$") + "@": variables[v][i] for v in group} for i in range(size)]

    first = walk(groups[0])
    if len(groups) == 1:
        return first
    return [{**inner, **outer} for outer in first for inner in walk(groups[1])]


def substitute(text: str, names: dict[str, str]) -> str:
    """`text` with each `@name@` of a foreach copy replaced."""
    for key, value in names.items():
        text = text.replace(key, value)
    return text


def join_variables(text: str, variables: dict[str, list[str]]) -> str:
    """`text` with each `$name$` replaced by the variable's names joined by `:`."""
    if "$" not in text:
        return text
    return _VARIABLE_REF.sub(lambda m: ":".join(variables[m.group(0)]) if m.group(0) in variables
                             else m.group(0), text)


def _copy(element: XmlElement, names: dict[str, str]) -> XmlElement:
    """A copy of `element` and its children with the foreach names substituted in every attribute."""
    return replace(element, attrs={k: substitute(v, names) for k, v in element.attrs.items()},
                   children=[_copy(child, names) for child in element.children])


def _expand_attachment(attachment: XmlElement, variables: dict[str, list[str]], fail: Fail) -> list[XmlElement]:
    foreach = attachment.attrs.get("foreach", "").strip()
    if not foreach and not any("$" in option.attrs.get("value", "") for option in attachment.children):
        return [attachment]
    copies = combinations(foreach, variables, attachment, fail) if foreach else [{}]
    out = []
    for names in copies:
        empty = [key for key, value in names.items() if not value]
        options = []
        for option in attachment.children:
            if option.tag == "option" and any(key in option.attrs.get("value", "") + option.attrs.get("count", "")
                                              for key in empty):
                continue  # TripleA leaves out an option that would name nothing
            copied = _copy(option, names)
            if copied.tag == "option" and "value" in copied.attrs:
                copied.attrs["value"] = join_variables(copied.attrs["value"], variables)
            options.append(copied)
        attrs = {k: substitute(v, names) for k, v in attachment.attrs.items() if k != "foreach"}
        out.append(replace(attachment, attrs=attrs, children=options))
    return out


def _expand_steps(sequence: XmlElement, variables: dict[str, list[str]], fail: Fail) -> list[XmlElement]:
    steps = []
    for child in sequence.children:
        if child.tag != "forEach":
            steps.append(child)
            continue
        for names in combinations(child.attrs.get("variable", "").strip(), variables, child, fail):
            steps.extend(_copy(step, names) for step in child.children)
    return steps


def expand_variables(root: XmlElement, fail: Fail) -> XmlElement:
    """The game tree with its variables expanded (the tree itself when it declares none and uses
    no `forEach`); each problem goes to `fail(message, element)`."""
    variables = read_variables(root, fail)
    children = []
    for section in root.children:
        if section.tag == "attachmentList":
            attachments = [copy for a in section.children
                           for copy in (_expand_attachment(a, variables, fail) if a.tag == "attachment" else [a])]
            section = replace(section, children=attachments)
        elif section.tag == "gamePlay":
            section = replace(section, children=[
                replace(part, children=_expand_steps(part, variables, fail)) if part.tag == "sequence" else part
                for part in section.children])
        children.append(section)
    return replace(root, children=children)
