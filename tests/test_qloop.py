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
