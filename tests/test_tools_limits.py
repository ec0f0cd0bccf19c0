"""Properties of the tool-result cut (pi's 2,000 lines / 50 KiB) and of edit's line endings."""

import codecs

from hypothesis import given, settings
from hypothesis import strategies as st

from pidesktop.host.tools import files, limits

lines = st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80), max_size=60)


@settings(max_examples=200, deadline=None)
@given(lines, st.integers(1, 30), st.integers(1, 400), st.sampled_from(["head", "tail"]))
def test_the_cut_stays_within_its_limits_and_keeps_whole_lines_from_its_end(parts, max_lines, max_bytes, keep):
    text = "\n".join(parts)
    cut = limits.cut(text, keep=keep, max_lines=max_lines, max_bytes=max_bytes)
    if not cut.truncated:
        assert cut.text == text
        return
    assert len(cut.text.encode()) <= max_bytes
    assert cut.kept_lines <= max_lines and cut.total_lines > 0
    whole = text.splitlines(keepends=True)
    if cut.kept_lines and cut.text == "".join(whole[: cut.kept_lines] if keep == "head" else whole[-cut.kept_lines :]):
        return  # whole lines from the chosen end
    # only one over-long line is ever split, and then the part kept is its start (head) or end (tail)
    assert cut.kept_lines == 1
    line = (whole[0] if keep == "head" else whole[-1]).encode()
    kept = cut.text.encode()
    assert line.startswith(kept) if keep == "head" else line.endswith(kept)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.text(alphabet="abc xyz", min_size=1, max_size=12), min_size=1, max_size=12),
    st.booleans(),
    st.booleans(),
    st.text(alphabet="QRS\n", max_size=10),
)
def test_edit_keeps_line_endings_and_the_byte_order_mark(tmp_path_factory, body, crlf, bom, replacement):
    folder = tmp_path_factory.mktemp("edit")
    marker = "<<unique>>"
    rows = [*body[:1], marker, *body[1:]]
    newline = "\r\n" if crlf else "\n"
    original = (codecs.BOM_UTF8 if bom else b"") + newline.join(rows).encode()
    path = folder / "f.txt"
    path.write_bytes(original)
    change = files.plan_edit(path, "f.txt", marker, replacement)
    assert change.before == original
    assert change.after.startswith(codecs.BOM_UTF8) == bom
    text = change.after[3 if bom else 0 :].decode()
    if crlf:
        assert "\n" not in text.replace("\r\n", "")  # every line ending is still CRLF
    else:
        assert "\r\n" not in text or "\r\n" in replacement
    expected = newline.join(rows).replace(marker, replacement.replace("\n", newline))
    assert text == expected


def test_an_older_result_over_the_limits_is_cut_for_the_model_but_one_already_cut_is_not():
    from pidesktop import tool_output
    from pidesktop.agent.openai_compat import to_openai_messages

    imported = "".join(f"output line {n}\n" for n in range(3000))  # e.g. a Claude Code Bash result
    message = {
        "id": "m",
        "role": "assistant",
        "blocks": [{"type": "tool_call", "callId": "c", "name": "Bash", "args": {}, "result": imported}],
    }
    sent = to_openai_messages([message])[-1]["content"]
    assert sent.count("\n") < 2010 and "output line 1999\n" in sent and "output line 2000" not in sent
    assert "showing the first 2000 of 3000 lines" in sent and "kept in this chat's transcript" in sent
    already = tool_output.cut(imported).text + "\n[Output cut: ... the whole output is in /x/tool-output/bash.txt]"
    assert tool_output.for_model(already) == already
    assert tool_output.for_model("\n" * 2500) != "\n" * 2500  # many short lines count too
