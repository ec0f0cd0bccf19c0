"""Reading ldd's answer about Qt's xcb plugin: exactly the libraries it cannot load, and their packages."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pidesktop import system_libraries
from pidesktop.system_libraries import XCB_LIBRARIES, install_commands, unloadable

sonames = st.builds(
    "lib{}.so.{}".format, st.text("abcdefghijklmnopqrstuvwxyz0123456789_+-", min_size=1, max_size=12), st.integers(0, 9)
)


@settings(deadline=None)
@given(st.dictionaries(sonames, st.booleans(), max_size=12))
def test_only_the_libraries_ldd_could_not_find_are_named(found_or_not):
    lines = [
        f"\t{name} => not found" if not found else f"\t{name} => /usr/lib/x86_64-linux-gnu/{name} (0x00007f0000000000)"
        for name, found in found_or_not.items()
    ]
    output = "\n".join(["\tlinux-vdso.so.1 (0x00007ffd00000000)", *lines, "\t/lib64/ld-linux-x86-64.so.2 (0x0)"])
    assert unloadable(output) == {name: "not found" for name, found in found_or_not.items() if not found}


def test_a_library_the_loader_cannot_load_is_named_with_the_reason():
    output = (
        "/opt/pidesktop/_internal/PySide6/Qt/plugins/platforms/libqxcb.so: error while loading shared "
        "libraries: /tmp/lib/libxcb-cursor.so.0: file too short\n"
    )
    assert unloadable(output) == {"libxcb-cursor.so.0": "file too short"}


def test_the_packages_named_are_those_of_the_missing_libraries():
    assert install_commands(["libxcb-cursor.so.0", "libxcb-shape.so.0", "libxcb-xkb.so.1"]) == {
        "Debian/Ubuntu": "sudo apt-get install libxcb-cursor0 libxcb-shape0 libxcb-xkb1",
        "Fedora": "sudo dnf install xcb-util-cursor libxcb",
    }
    assert install_commands(["libunknown.so.3"]) == {}
    everything = install_commands()["Debian/Ubuntu"].split()[3:]
    assert everything == [library.debian for library in XCB_LIBRARIES]


def test_ldd_on_a_file_it_cannot_read_answers_without_a_crash(tmp_path):
    assert system_libraries.missing_for(tmp_path / "nothing.so") in ({}, None)
