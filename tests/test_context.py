"""The context budget: windows, reserves, estimates, the correction and where a kept tail starts."""

from hypothesis import given, settings
from hypothesis import strategies as st

from pidesktop.agent import compaction
from pidesktop.agent import context as budget


def text(mid, role, words):
    return {"id": mid, "role": role, "blocks": [{"type": "text", "text": words}]}


def test_the_window_comes_from_the_override_the_row_the_table_or_the_default():
    assert budget.window_for("gpt-4o", {"contextWindow": 9000}, override=3000) == 3000
    assert budget.window_for("gpt-4o", {"contextWindow": 9000}) == 9000
    assert budget.window_for("gpt-4o", {"context_window": 7000}) == 7000
    assert budget.window_for("gpt-4o-mini", {"contextWindow": None}) == 128_000
    assert budget.window_for("openai/gpt-4o") == 128_000
    assert budget.window_for("gpt-4") == 8_192 and budget.window_for("gpt-4-turbo") == 128_000
    assert budget.window_for("some-local-model") == budget.DEFAULT_WINDOW == 32_000
    assert budget.window_for(None) == 32_000


def test_the_reply_reserve_is_at_most_4096_and_a_quarter_of_small_windows():
    assert budget.reply_reserve(32_000) == 4096
    assert budget.reply_reserve(4000) == 1000
    assert budget.input_budget(4000) == 3000


def test_compact_at_is_clamped_to_its_range_and_never_above_the_budget():
    assert budget.compact_threshold(100_000, 0.8) == 80_000
    assert budget.compact_threshold(100_000, 0.2) == 80_000  # out of range: the default
    assert budget.compact_threshold(100_000, True) == 80_000
    assert budget.compact_threshold(8000, 0.95) == budget.input_budget(8000)


def test_estimates_count_text_tools_and_attachments_not_thinking():
    assert budget.message_tokens(text("a", "user", "x" * 400)) == 100 + budget.MESSAGE_OVERHEAD
    thinking = {"id": "t", "role": "assistant", "blocks": [{"type": "thinking", "text": "y" * 4000}]}
    assert budget.message_tokens(thinking) == budget.MESSAGE_OVERHEAD
    image = {"type": "attachment", "kind": "image", "mimeType": "image/png", "name": "a.png", "size": 5 << 20}
    assert budget.block_tokens(image) == budget.IMAGE_TOKENS
    log = {"type": "attachment", "kind": "file", "mimeType": "text/plain", "name": "a.log", "size": 10 << 20}
    assert budget.block_tokens(log) == budget.NAMED_ATTACHMENT_TOKENS  # too big to inline: only named
    notes = {"type": "attachment", "kind": "file", "mimeType": "text/plain", "name": "n.txt", "size": 4000}
    assert budget.block_tokens(notes) == budget.NAMED_ATTACHMENT_TOKENS + 1000
    binary = {"type": "attachment", "kind": "file", "mimeType": "application/zip", "name": "a.zip", "size": 10 << 20}
    assert budget.block_tokens(binary) == budget.NAMED_ATTACHMENT_TOKENS
    call = {"type": "tool_call", "name": "f", "args": {"q": "z" * 40}, "result": "r" * 400}
    assert budget.block_tokens(call) > 100


def test_the_correction_follows_the_reported_prompt_tokens_within_bounds():
    correction = budget.Correction()
    assert correction.apply("s", 100) == 100
    correction.observe("s", 100, 150)
    assert correction.apply("s", 100) == 150 and correction.apply("other", 100) == 100
    correction.observe("s", 100, 100_000)
    assert correction.factor("s") == budget.FACTOR_MAX
    correction.observe("s", 100, None)
    assert correction.factor("s") == budget.FACTOR_MAX


roles = st.sampled_from(["user", "assistant", "tool"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(roles, st.integers(1, 3000)), min_size=1, max_size=60), st.integers(1, 4000))
def test_the_tail_always_keeps_the_newest_message_and_fits_unless_it_is_one(items, target):
    messages = [{"id": str(i), "role": role} for i, (role, _) in enumerate(items)]
    tokens = [count for _, count in items]
    start = budget.tail_start(messages, tokens, target)
    assert 0 <= start <= len(messages) - 1
    assert sum(tokens[start:]) <= target or start == len(messages) - 1 or messages[start]["role"] == "user"
    assert sum(tokens[start:]) <= max(target, tokens[-1]) or messages[start]["role"] == "user"
    if start < len(messages) - 1:
        assert messages[start]["role"] != "tool"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(1, 5000), min_size=2, max_size=80),
    st.sampled_from([1000, 2000, 4000, 16000]),
    st.text(max_size=3000),
    st.booleans(),
)
def test_a_summary_request_never_exceeds_the_window(sizes, window, previous, complete):
    messages = [text(str(i), "user" if i % 2 == 0 else "assistant", "w" * (4 * size)) for i, size in enumerate(sizes)]
    tokens = [budget.message_tokens(m) for m in messages]
    plan = compaction.plan(messages, tokens, window=window, previous_summary=previous, complete=complete)
    if plan is None:
        return
    request = compaction.request(plan, previous, window)
    assert budget.estimate(request) <= budget.input_budget(window)
    ids = [m["id"] for m in messages]
    assert ids.index(plan.first_kept["id"]) == ids.index(plan.through["id"]) + 1
    assert plan.summarise and plan.summarise[-1] is plan.through
    if not complete:
        assert plan.left_out and compaction.LEFT_OUT in request[1]["blocks"][0]["text"]


def test_the_offline_demo_answers_a_summary_request_the_same_way_every_time():
    import asyncio

    from pidesktop.agent.offline import OfflineDemoProvider

    messages = [text(str(i), "user" if i % 2 == 0 else "assistant", f"question {i}") for i in range(10)]
    plan = compaction.plan(messages, [budget.message_tokens(m) for m in messages], window=40, complete=False)
    request = compaction.request(plan, "", 4000)

    async def ask():
        return await compaction.summarise(OfflineDemoProvider(delay=0), request, None)

    first, second = asyncio.run(ask()), asyncio.run(ask())
    assert first == second and "Older history was left out" in first and "offline demo" in first
