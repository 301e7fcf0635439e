"""The collector as a process that plays games sets it (runtime/collector.py)."""

from __future__ import annotations

import gc

from ruleslang.runtime import collector


def test_for_play_freezes_what_is_loaded_and_collects_the_young_less_often():
    before = gc.get_threshold()
    frozen = gc.get_freeze_count()
    try:
        kept = [object() for _ in range(3)] + [[i] for i in range(100)]  # (tracked: lists)
        collector.for_play()
        assert gc.get_threshold() == (collector.YOUNG, collector.MIDDLE, before[2])
        assert gc.get_freeze_count() >= frozen + len(kept) - 3  # what the process held, out of every collection
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
