"""Start-up's objects are moved out of the collector's full passes, once per stage."""

import gc

from pidesktop.ui import gc_pauses


def test_each_stage_freezes_once_and_later_objects_are_still_collected(monkeypatch):
    monkeypatch.setattr(gc_pauses, "_frozen", set())
    try:
        assert gc_pauses.freeze("window") is True
        frozen = gc.get_freeze_count()
        assert frozen > 0
        assert gc_pauses.freeze("window") is False
        assert gc.get_freeze_count() == frozen  # nothing more moved by a repeated stage

        class Node:
            pass

        node = Node()
        node.me = node  # a cycle made after the freeze: a full pass still frees it
        gc.collect()  # the cycle now sits in the oldest generation, where later passes look
        survivors = gc.get_freeze_count()
        del node
        assert gc.collect() >= 1
        assert gc.get_freeze_count() == survivors  # the frozen objects stayed out of it
        assert gc_pauses.freeze("warm-up") is True
        assert gc.get_freeze_count() >= frozen
    finally:
        gc.unfreeze()
