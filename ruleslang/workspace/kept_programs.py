"""A checked composition as bytes, so that a later process can skip resolving and checking it.

A `call` of one formula spent most of its own time composing its rulesets (building their ASTs
again from the parse cache), building the map and checking, although none of it changes between
two runs over the same files. `encode` writes what the pipeline made (the resolved ruleset, the
map, the checked program, the diagnostics) and `decode` gives it back; workspace/compositions.py
keeps the bytes as a kept result (workspace/kept.py), checked against every file it was made from.

The bytes are a pickle, because the checked program is a graph: a symbol, a table and the
checker's facts all point at the same AST nodes and enumeration members, which are equal by
identity, and the checker's facts (`CheckInfo`) are keyed by the `id` of the node they describe.
Ids do not survive a process, so those tables are written as (node, fact) pairs: the node is a
reference to the one written with the AST, and `decode` keys the facts by the new node's id.

Never trusted: the cache file is read only when its digest and format line are ours
(base/cache.py) and every file it was made from is unchanged (workspace/kept.py), and even then
the unpickler builds only the package's own data classes (the AST, types, scope, map, spans,
diagnostics: dataclasses and enumerations of `ruleslang.base`, `ruleslang.lang` and
`ruleslang.board`, and the enumeration members' class), fractions and paths; a payload naming
anything else (a function, a class of another module) is refused and the work done again.
"""

from __future__ import annotations

import dataclasses
import enum
import gc
import io
import pickle
from types import MappingProxyType

from ruleslang.lang.check.program import Program
from ruleslang.lang.check.typecheck import CheckInfo
from ruleslang.lang.compose.composition import Ruleset
from ruleslang.lang.syntax import ast

# 2: the AST's node classes moved from lang/syntax/ast.py to expressions, statements and declarations
FORMAT = 2
_PROTOCOL = 5
# CheckInfo's tables keyed by node id (`random` is a set of them)
_BY_NODE = ("types", "names", "slots", "frames", "coerce", "calls", "fields")
# the program's fields written as they are (its facts are written by node, its capabilities are the host's)
_PLAIN = tuple(f.name for f in dataclasses.fields(Program) if f.name not in ("ruleset", "info", "capabilities"))
_OWN = ("ruleslang.base.", "ruleslang.lang.", "ruleslang.board.")
_OTHERS = {("fractions", "Fraction"), ("pathlib", "PosixPath"), ("pathlib", "WindowsPath"),
           ("pathlib", "PurePosixPath"), ("pathlib", "PureWindowsPath"), ("ruleslang.lang.values", "EnumValue"),
           (__name__, "_proxy")}
_HOST = "capabilities"


def _proxy(mapping: dict) -> MappingProxyType:
    """A read-only mapping again (the map keeps its tables as such; pickle cannot write them)."""
    return MappingProxyType(mapping)


class _Pickler(pickle.Pickler):
    dispatch_table = {MappingProxyType: lambda m: (_proxy, (dict(m),))}

    def __init__(self, file, capabilities):
        super().__init__(file, protocol=_PROTOCOL)
        self._capabilities = capabilities

    def persistent_id(self, obj):
        return _HOST if obj is self._capabilities else None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, capabilities):
        super().__init__(file)
        self._capabilities = capabilities

    def persistent_load(self, pid):
        if pid != _HOST:
            raise pickle.UnpicklingError(f"unknown reference {pid!r}")
        return self._capabilities

    def find_class(self, module: str, name: str):
        if (module, name) in _OTHERS:
            return super().find_class(module, name)
        if module.startswith(_OWN) and "." not in name:
            found = super().find_class(module, name)
            if isinstance(found, type) and (dataclasses.is_dataclass(found) or issubclass(found, enum.Enum)):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not something a kept program holds")


def encode(loaded, capabilities) -> bytes | None:
    """The checked composition of `loaded` (a workspace's `Loaded`) as bytes; None when it holds
    something the format cannot carry (a fact about a node that is not in the program)."""
    program = loaded.program
    out = io.BytesIO()
    pickler = _Pickler(out, capabilities)
    try:
        pickler.dump((FORMAT, loaded.ruleset, loaded.game_map, list(loaded.diagnostics),
                      {name: getattr(program, name) for name in _PLAIN}))
        # every object written so far by its id: the nodes the facts are about are among them
        written = {key: obj for key, (_, obj) in pickler.memo.copy().items()}
        info = program.info
        facts = {name: [(_node(written, key), fact) for key, fact in getattr(info, name).items()]
                 for name in _BY_NODE}
        facts["random"] = [_node(written, key) for key in info.random]
        pickler.dump(facts)
    except (KeyError, pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return None
    return out.getvalue()


def _node(written: dict, key: int) -> ast.Node:
    """The node written under id `key` (KeyError when none was: the fact is about another object)."""
    node = written[key]
    if not isinstance(node, ast.Node):
        raise KeyError(key)
    return node


def decode(blob: bytes, capabilities):
    """(ruleset, map, program, diagnostics) back from `encode`'s bytes, the program checked against
    `capabilities`; None when the bytes are not a kept program of this format."""
    unpickler = _Unpickler(io.BytesIO(blob), capabilities)
    collecting = gc.isenabled()
    gc.disable()  # tens of thousands of objects, none of them garbage: no collection while they are built
    try:
        fmt, ruleset, game_map, diagnostics, plain = unpickler.load()
        if fmt != FORMAT or not isinstance(ruleset, Ruleset) or not isinstance(plain, dict):
            return None
        facts = unpickler.load()
        info = CheckInfo()
        for name in _BY_NODE:
            setattr(info, name, {id(node): fact for node, fact in facts[name]})
        info.random = {id(node) for node in facts["random"]}
        program = Program(ruleset=ruleset, info=info, capabilities=capabilities,
                          **{name: plain[name] for name in _PLAIN})
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, KeyError, IndexError, AttributeError,
            ImportError, RecursionError, MemoryError):
        return None
    finally:
        if collecting:
            gc.enable()
    return ruleset, game_map, program, list(diagnostics)
