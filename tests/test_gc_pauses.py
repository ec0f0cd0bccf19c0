"""Start-up's objects are moved out of the collector's full passes, once per stage."""

import gc
import weakref

from pidesktop.ui.startup import gc_pauses


class Node:
    pass


def cycle() -> tuple[Node, weakref.ref]:
    node = Node()
    node.me = node  # only a collector pass can free it
    return node, weakref.ref(node)


def test_each_stage_freezes_once_and_later_objects_are_still_collected(monkeypatch):
    monkeypatch.setattr(gc_pauses, "_frozen", set())
    freezes = []
    real_freeze = gc.freeze
    monkeypatch.setattr(gc, "freeze", lambda: (freezes.append(1), real_freeze()))
    try:
        before, before_ref = cycle()
        assert gc_pauses.freeze("window") is True and len(freezes) == 1
        assert gc_pauses.freeze("window") is False and len(freezes) == 1  # a repeated stage moves nothing more
        after, after_ref = cycle()
        del before, after
        gc.collect()
        assert before_ref() is not None  # frozen: out of the collector's passes
        assert after_ref() is None  # made after the freeze: a full pass still frees it
        assert gc_pauses.freeze("warm-up") is True and len(freezes) == 2
    finally:
        gc.unfreeze()
        gc.collect()
