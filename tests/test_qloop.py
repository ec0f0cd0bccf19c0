"""The tests' qasync loop: a task woken between two waits keeps running, as it does in the app."""

import asyncio

from tests.support.waits import spin_until


def test_a_task_woken_after_a_wait_ends_does_not_lose_its_loop(qloop):
    async def ticking():
        while True:
            await asyncio.sleep(0.0001)  # asks for the running loop every step

    task = qloop.create_task(ticking())
    for _ in range(20):
        spin_until(qloop, lambda: True)
    assert not task.done(), task.exception()
    task.cancel()


def test_a_task_stepped_while_qt_waits_outside_the_loop_still_has_its_loop(qloop, qtbot):
    # qtbot.waitUntil runs Qt's events, and with them qasync's callbacks, while no asyncio loop runs
    steps = []

    async def stepping():
        for _ in range(5):
            await asyncio.sleep(0)
            steps.append(asyncio.current_task() is task)  # raises "no running event loop" outside the loop

    task = qloop.create_task(stepping())
    qtbot.waitUntil(task.done)
    assert task.exception() is None
    assert steps == [True] * 5
