"""The settings of a runtime procedure, as the ruleset wrote them.

`phase combat_move: runtime move with {kind: "combat", movement: u => u.movement, ...}`: each
setting is an expression, or a condition `x => ...` on a unit or unit type. They are compiled
once per procedure and evaluated in the game's context when the procedure runs; conditions on
unit types and units are cached per (type, owner) for the phase, since the runtime asks them
for every unit many times. `lasting` keeps an answer across phases, for as long as what its
evaluation read is unchanged (watched through `WatchedContext`).
"""

from __future__ import annotations

import copy
from typing import Any, Callable
from weakref import WeakKeyDictionary

from ruleslang.lang.eval.context import WatchedContext, counter_key
from ruleslang.lang.eval.kind_reads import constant_setting
from ruleslang.lang.syntax.expressions import Lambda
from ruleslang.lang.syntax.declarations import RuntimeProcedure


_UNSET = object()  # a counter entry the state does not hold
_UNASKED = object()  # a cached setting not asked yet (`unit_fn`, `type_fn`)
_SHARED_STATES = 4  # the counter states kept a key for an answer that read counters (`_share_as_read`)


def _same_counters(a: tuple, b: tuple) -> bool:
    """Whether two `_counters_mark`s name the same counters, unwritten between them."""
    return a[0] is b[0] and len(a[1]) == len(b[1]) and all(
        x[0] == y[0] and x[1] is y[1] and x[2] == y[2] for x, y in zip(a[1], b[1]))


class ProcedureConfig:
    def __init__(self, ctx, proc: RuntimeProcedure):
        self.ctx = ctx
        self.proc = proc
        self.size = ctx.compiled.info.frames.get(id(proc), 1)
        self.fields: dict[str, Any] = {}
        if proc.config is not None:
            for ident, value in proc.config.fields:
                self.fields[ident.text] = value
        self._compiled: dict[str, Callable] = {}
        self._cache: dict[tuple, Any] = {}
        # key -> (answer, {(counter, entry key): the entry when read}); only answers that read
        # nothing but counters are kept (see `lasting`)
        self._lasting: dict[tuple, tuple[Any, dict[tuple, Any]]] = {}
        self._checked: tuple | None = None  # what `_forget_stale` last looked at (the counters, their writes)
        # tables a caller derives from lasting answers alone (`kept`): emptied when one is dropped
        self._kept: dict[str, dict] = {}
        self._options: Any = _UNSET  # the game's options as a key (`_shared_key`), found on first use
        self._read_names: tuple[str, ...] | None = None  # the counters the lasting answers read, sorted
        self._changes = 0  # how many times lasting answers came or went
        # the last copy for another context (`for_context`): (`_changes` then, the counters it was
        # checked against (`_counters_mark`), its lasting answers, its `_read_names`)
        self._made_for: tuple | None = None
        # the last copy for a state `like` stood for (`for_context`): (`like`, `_changes` then, the
        # counters its check looked at, its lasting answers, `_read_names` and `_changes`)
        self._made_like: tuple | None = None

    def for_context(self, ctx, like: object = None, cached: bool = False) -> "ProcedureConfig":
        """The same settings for another game's context (a look-ahead's copy of the game): the
        compiled settings shared, nothing cached for a phase; the lasting answers whose counter
        entries the copy's state holds as they were read (the copy starts from this game's
        state at a phase start: the unit settings of most copies are those of the game).

        `like`: an object standing for the counters `ctx.state` holds, entry for entry the same
        (and as often written) in every state given with it, in dicts of their own (the
        look-ahead's copies made from one kept phase start): the lasting answers are checked
        against the first such state, and the next copies take what that check left while no
        lasting answer came or went here.

        `cached`: the copy starts with the answers this one has cached (`unit_fn`'s, `type_fn`'s,
        `lasting`'s for the phase): a copy of the game as it stands (the look-ahead's), which asks
        what the game would ask, when the game would, and takes what the game took then."""
        clone = copy.copy(self)
        clone.ctx = ctx
        clone._cache = dict(self._cache) if cached else {}
        clone._lasting, clone._checked, clone._kept = dict(self._lasting), None, {}
        clone._made_for = clone._made_like = None
        if ctx.state is None:
            clone._lasting, clone._read_names = {}, None
            return clone
        if like is not None:
            made = self._made_like
            if made is not None and made[0] is like and made[1] == self._changes:
                _, _, names, lasting, clone._read_names, clone._changes = made
                clone._lasting = dict(lasting)
                if names is not None:  # what the check looked at, in this state's counters (`_forget_stale`)
                    state = ctx.state
                    clone._checked = (state.counters, tuple((name, state.counters.get(name),
                                                             state.counter_writes.get(name, 0)) for name in names))
                return clone
            clone._forget_stale()
            names = tuple(name for name, _, _ in clone._checked[1]) if clone._checked is not None else None
            self._made_like = (like, self._changes, names, dict(clone._lasting), clone._read_names, clone._changes)
            return clone
        # a copy for a state holding the very counters of the last copy's (the same dicts, written as
        # often since), with no lasting answer come or gone: the answers that copy kept, without
        # checking every entry they read again (the exact chain of every battle an agent asks
        # about shares the game's counters: `runtime/odds/states.py`)
        mark = self._counters_mark(ctx.state)
        made = self._made_for
        if made is not None and made[0] == self._changes and _same_counters(made[1], mark):
            clone._lasting, clone._read_names = dict(made[2]), made[3]
            return clone
        clone._forget_stale()
        self._made_for = (self._changes, mark, dict(clone._lasting), clone._read_names)
        return clone

    def reads_counters(self) -> bool:
        """Whether a lasting answer read a counter entry: a copy for another context (`for_context`)
        then depends on that context's counters when it is made."""
        return bool(self._names())

    def _names(self) -> tuple[str, ...]:
        """The counters the lasting answers read, sorted (worked out again only when answers that
        read counters came or went)."""
        names = self._read_names
        if names is None:
            names = self._read_names = tuple(sorted({name for _, read in self._lasting.values() for name, _ in read}))
        return names

    def _counters_mark(self, state) -> tuple:
        """The counters `state` holds that the lasting answers read, as `_same_counters` compares
        them: the state's dict of counters, and each counter's dict and how often it was written."""
        return (state.counters, tuple((name, state.counters.get(name), state.counter_writes.get(name, 0))
                                      for name in self._names()))

    def has(self, name: str) -> bool:
        return name in self.fields

    def _fn(self, name: str):
        """The compiled setting `name`: `fn(env)` for a plain setting; for a condition `x => ...`,
        `fn(env, value)` with the value in the parameter's slot. Generated Python under the code
        generator (`Procedures.expression`: an error is placed at the rule, as in a hook's
        condition), else closures."""
        fn = self._compiled.get(name)
        if fn is None:
            # generated once per program: the games of a process that share it share its settings
            procs = self.ctx.procedures
            key = (id(self.proc), name)
            fn = procs.settings.get(key)
            if fn is None:
                node = self.fields[name]
                label = f"runtime {self.proc.name.text} {name}"
                if isinstance(node, Lambda):
                    body = procs.expression(node.body, label, self.proc)
                    slot = self.ctx.compiled.info.slots[id(node.param)]

                    def fn(env, value):
                        env[slot] = value
                        return body(env)
                else:
                    fn = procs.expression(node, label, self.proc)
                procs.settings[key] = fn
            self._compiled[name] = fn
        return fn

    def _env(self) -> list:
        return [self.ctx] + [None] * (self.size - 1)

    def new_phase(self) -> None:
        """Forget cached answers: conditions may read the game (technologies, counters). Lasting
        answers are kept while every counter entry they read is unchanged."""
        self._cache.clear()
        self._forget_stale()

    def _forget_stale(self) -> None:
        """Drop the lasting answers that read a counter entry the state no longer holds as read."""
        if not self._lasting:
            return
        # nothing to look at when no counter the answers read was written since the last look
        # (`GameState.counter_writes`) and the state's counters are the same dicts
        mark = self._counters_mark(self.ctx.state)
        seen = self._checked
        if seen is not None and _same_counters(seen, mark):
            return
        self._checked = mark
        # each counter's entries by key, made once for this check (`_counter_entry` walks them all
        # for every entry read, and every kept answer is checked)
        counters = self.ctx.state.counters
        indexed: dict[str, dict[tuple, Any]] = {}

        def entry(name: str, key: tuple) -> Any:
            entries = indexed.get(name)
            if entries is None:
                entries = indexed[name] = {}
                for raw, value in counters.get(name, {}).items():
                    entries[tuple(counter_key(k) for k in raw)] = value  # the last one found, as there
            return entries.get(key, _UNSET)
        stale = [key for key, (_, read) in self._lasting.items()
                 if any(entry(name, k) != value for (name, k), value in read.items())]
        for key in stale:
            del self._lasting[key]
        if stale:
            self._read_names = None
            self._changes += 1
            for table in self._kept.values():
                table.clear()

    def kept(self, name: str) -> dict:
        """A table the caller fills with what it derives from lasting answers only (`is_lasting`):
        kept across phases, emptied whenever a lasting answer is dropped (a counter it read changed)."""
        table = self._kept.get(name)
        if table is None:
            table = self._kept[name] = {}
        return table

    def is_lasting(self, key: tuple) -> bool:
        """Whether `lasting(key, ...)`'s answer is kept across phases (it read nothing but counters)."""
        return key in self._lasting

    def lasting(self, key: tuple, compute: Callable[[Any], Any]) -> Any:
        """`compute(ctx)`, kept across phases under `key` while what it read is unchanged.

        `compute` must read the game only through the context it is given (a `WatchedContext`):
        an answer that read nothing that changes is kept for the game; one that read counters is
        kept until one of the entries it read changes (checked by `new_phase`); one that read anything
        else (the board, the dice, the battle) is kept for this phase only, like `unit_fn`'s."""
        found = self._lasting.get(key)
        if found is not None:
            return found[0]
        found = self._cache.get(("lasting",) + key)
        if found is not None:
            return found
        shared = self._shared_key(key)
        if shared is not None:
            answers = self.ctx.procedures.constant_answers
            found = answers.get(shared)
            if found is not None:
                self._lasting[key] = (found, {})
                self._changes += 1
                return found
            if self.ctx.state is not None:
                found = self._answer_as_read(answers.get(("counters",) + shared, ()))
                if found is not None:
                    self._lasting[key] = found
                    self._changes += 1
                    self._read_names = None
                    return found[0]
        watch = WatchedContext(self.ctx)
        answer = compute(watch)
        if watch.other or self.ctx.state is None:  # without a game state, counters live in the context
            self._cache[("lasting",) + key] = answer
        else:
            read = {entry: self._counter_entry(*entry, kept=True) for entry in sorted(watch.counters_read)}
            self._lasting[key] = (answer, read)
            self._changes += 1
            if read:
                self._read_names = None
            if shared is not None:
                if not read:
                    self.ctx.procedures.constant_answers[shared] = answer
                else:
                    self._share_as_read(shared, answer, read)
        return answer

    def _answer_as_read(self, candidates) -> tuple | None:
        """The first of an answer's kept (answer, counter entries read) pairs whose entries this
        game's counters hold as they were read (`_share_as_read`), or None."""
        entry = self._counter_entry
        for found in candidates:
            if all(entry(name, k) == value for (name, k), value in found[1].items()):
                return found
        return None

    def _share_as_read(self, shared: tuple, answer: Any, read: dict) -> None:
        """Keep an answer that read counters for the other games of the program played with these
        options, with the entries it read (`Procedures.constant_answers`, under `("counters",) +
        shared`): a game whose counters hold those entries alike takes it without working it out
        again (a compare worker's games each worked out the air units' move rules, which read
        whether a technology is developed, in their first move phase: about 50 us a kind). A few
        states are kept a key (the first ones met: most games ask in the counters they start with)."""
        answers = self.ctx.procedures.constant_answers
        kept = answers.setdefault(("counters",) + shared, [])
        if len(kept) < _SHARED_STATES:
            kept.append((answer, read))

    def _shared_key(self, key: tuple) -> tuple | None:
        """The key of a lasting answer that read nothing a game changes, for every game of the
        program played with the same options (the one thing such an answer may read that another
        game holds otherwise; `Procedures.constant_answers`); None when the options are not
        plain enough to be a key."""
        options = self._options
        if options is _UNSET:
            try:
                options = tuple(sorted(self.ctx.options.items(), key=lambda item: item[0]))
                hash(options)
            except TypeError:
                options = None
            self._options = options
        return None if options is None else (id(self.proc), key, options)

    def _counter_entry(self, name: str, key: tuple, kept: bool = False) -> Any:
        """A counter's entry as the game state holds it, found as `EvalContext.counter` finds it
        (keys compared as text; `_UNSET` when it has none: its default); `kept`: a copy, to
        compare with later (a list or mapping value may be changed in place)."""
        found = _UNSET
        for raw, value in self.ctx.state.counters.get(name, {}).items():
            if tuple(counter_key(k) for k in raw) == key:
                found = copy.deepcopy(value) if kept else value
        return found

    def unit_answer(self, name: str, unit, ctx) -> Any:
        """The `u => ...` setting `name` of a board unit, evaluated now with `ctx` (no cache)."""
        return self._fn(name)([ctx] + [None] * (self.size - 1), ctx.unit_value(unit))

    def value(self, name: str, default: Any = None) -> Any:
        """A plain setting (text, number, true/false), evaluated now."""
        if name not in self.fields:
            return default
        return self._fn(name)(self._env())

    def kept_value(self, name: str, default: Any = None) -> Any:
        """A plain setting, as `value` gives it, kept across phases while what it read is unchanged
        (`lasting`: most are constants); for a caller that asks once, at the start of its phase."""
        if name not in self.fields:
            return default
        fn = self._fn(name)
        return self.lasting(("value", name), lambda reader: fn([reader] + [None] * (self.size - 1)))

    def text(self, name: str, default: str | None = None) -> str | None:
        return self.value(name, default)

    def unit_fn(self, name: str, default: Any = None) -> Callable | None:
        """A `u => ...` setting as a Python function of a board unit, cached per (type, owner)."""
        if name not in self.fields:
            return None if default is None else (lambda unit: default)
        make = self._fn(name)
        ctx = self.ctx
        cache = self._cache
        kept = self._kind_answers(name, True)

        def of_unit(unit):
            key = (name, unit.type, unit.owner)
            found = cache.get(key, _UNASKED)  # (one look-up: asked for every unit a round or a plan looks at)
            if found is _UNASKED:
                found = kept.get(key, _UNASKED) if kept is not None else _UNASKED
                if found is _UNASKED:
                    found = make(self._env(), ctx.unit_value(unit))
                    if kept is not None:
                        kept[key] = found
                cache[key] = found
            return found
        return of_unit

    def type_fn(self, name: str, default: Any = None) -> Callable | None:
        """A `t => ...` setting on unit types, as a Python function of a type name (cached)."""
        if name not in self.fields:
            return None if default is None else (lambda type_name: default)
        make = self._fn(name)
        ctx = self.ctx
        cache = self._cache
        kept = self._kind_answers(name, False)

        def of_type(type_name: str):
            key = (name, type_name)
            found = cache.get(key, _UNASKED)
            if found is _UNASKED:
                found = kept.get(key, _UNASKED) if kept is not None else _UNASKED
                if found is _UNASKED:
                    found = make(self._env(), ctx.unittype_values[type_name])
                    if kept is not None:
                        kept[key] = found
                cache[key] = found
            return found
        return of_type

    def _kind_answers(self, name: str, unit: bool) -> dict | None:
        """The answers of the setting `name` (on units: `unit`, else on unit types) kept for every
        game of the program played with these options, by the kind or type asked (`unit_fn`,
        `type_fn`), when it gives every unit of a kind the same answer wherever the game asks it
        (kind_reads.py `constant_setting`: it reads nothing else of the game); else None, and it is
        asked again in each phase. A game asks the settings of every kind on its board again as
        each procedure's phase starts, and so does every copy of the game a look-ahead plays and
        every exact battle chain (their settings are this game's, made for their own context)."""
        shared = self._shared_key(("kinds", name))
        if shared is None:
            return None
        answers = self.ctx.procedures.constant_answers
        found = answers.get(shared)
        if found is None:
            node = self.fields[name]
            constant = isinstance(node, Lambda) and constant_setting(self.ctx.compiled, node, unit)
            found = answers[shared] = {} if constant else False
        return found if found is not False else None

    def space_fn(self, name: str, default: Any = None) -> Callable | None:
        """A `t => ...` setting on spaces (not cached: it may read the board)."""
        if name not in self.fields:
            return None if default is None else (lambda space: default)
        make = self._fn(name)
        ctx = self.ctx
        return lambda space: make(self._env(), ctx.space_values[space])

    def value_fn(self, name: str) -> Callable | None:
        """A `x => ...` setting as a Python function of a language value (not cached)."""
        if name not in self.fields:
            return None
        make = self._fn(name)
        return lambda value: make(self._env(), value)

    def predicate(self, name: str):
        fn = self.unit_fn(name)
        if fn is None:
            return None
        return lambda unit: fn(unit) is True


# compiled program -> (its symbol table, how many symbols it had, procedure name -> its (symbol,
# procedure) pairs): `runtime_procedures` scans the program's symbols once per name, not once per
# call (the exact battle odds build a host, its unit facts and battle rules, for every battle an
# agent asks about, each asking several names); scanned again when the table is another or grew
_PROCEDURES: WeakKeyDictionary = WeakKeyDictionary()


def _kept(compiled) -> dict:
    """The program's kept procedure entries (`_PROCEDURES`), made anew when its symbol table is
    another or grew."""
    symbols = compiled.symbols
    kept = _PROCEDURES.get(compiled)
    if kept is None or kept[0] is not symbols or kept[1] != len(symbols):
        kept = _PROCEDURES[compiled] = (symbols, len(symbols), {})
    return kept[2]


def runtime_procedures(compiled, name: str) -> list[tuple[Any, RuntimeProcedure]]:
    """Every (symbol, procedure) of the composition whose phase or step is `runtime NAME with ...`,
    in declaration order (a new list: the caller may change it)."""
    return list(_procedures(_kept(compiled), compiled, name))


def _procedures(kept: dict, compiled, name: str) -> tuple:
    """`runtime_procedures` as kept (a tuple), scanned once per name."""
    found = kept.get(name)
    if found is None:
        found = kept[name] = tuple(_scan_procedures(compiled.symbols, name))
    return found


def setting_procedure(compiled, procedure: str, setting: str) -> RuntimeProcedure | None:
    """The first of `runtime_procedures(compiled, procedure)` whose settings give `setting` (None
    when none does), found once per program (the kit asks it for every battle chain it makes:
    a chain's unit facts ask eight settings, each one look-up once found)."""
    kept = _kept(compiled)
    key = (procedure, setting)  # a name's own entry is a string
    found = kept.get(key, _UNSET)
    if found is _UNSET:
        found = kept[key] = next((proc for _, proc in _procedures(kept, compiled, procedure)
                                  if proc.config is not None and any(i.text == setting for i, _ in proc.config.fields)),
                                 None)
    return found


def _scan_procedures(symbols: dict, name: str) -> list[tuple[Any, RuntimeProcedure]]:
    """`runtime_procedures`, from the symbols themselves."""
    found = []
    for sym in symbols.values():
        proc = getattr(sym.decl, "procedure", None)  # phases and steps have one; other symbols do not
        if isinstance(proc, RuntimeProcedure) and proc.name.text == name:
            found.append((sym, proc))
    return found


def procedure_config(ctx, proc: RuntimeProcedure) -> ProcedureConfig:
    """The settings of `proc` for this game (built once per game and procedure)."""
    game = ctx.game
    found = game.configs.get(id(proc))
    if found is None:
        found = game.configs[id(proc)] = ProcedureConfig(ctx, proc)
    return found
