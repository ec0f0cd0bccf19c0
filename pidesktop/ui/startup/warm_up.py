"""After the window is up: load what its first paint did not need.

Start-up imports only what the first paint draws. The rest (the model
providers with httpx, markdown and pygments, the Settings, search,
automations, import, trash and export dialogs) is imported here once the
session list is in, so the first click on a menu or the first message is not
slowed by an import either. The libraries without Qt classes load on a worker
thread; the dialog modules (Qt classes) load on the UI thread, one per turn of
the event loop, so the window keeps painting between them.
"""

from __future__ import annotations

import asyncio
import importlib
import logging

from pidesktop.ui.startup import gc_pauses

log = logging.getLogger("pidesktop.ui")

# Plain Python (no Qt classes): loaded off the UI thread.
LIBRARIES = (
    "pidesktop.agent.openai_compat",
    "pidesktop.agent.model_refresh",
    "pidesktop.agent.presets",
    "pidesktop.agent.export",
    "pidesktop.workflows.backup",
    "pidesktop.workflows.status",
)
# Qt dialogs, after the libraries they import are in (so the UI thread never waits for the worker); each
# module's own imports first, so every turn of the event loop loads one module and stays short.
DIALOGS = (
    "pidesktop.ui.data.relaunch",
    "pidesktop.ui.data.host_jobs",
    "pidesktop.ui.settings.settings_general",
    "pidesktop.ui.settings.settings_usage",
    "pidesktop.ui.settings.settings_providers",
    "pidesktop.ui.data.settings_data",
    "pidesktop.ui.settings.settings_dialog",
    "pidesktop.ui.search.search_dialog",
    "pidesktop.ui.automations.automations_editor",
    "pidesktop.ui.automations.automations",
    "pidesktop.ui.data.data_tools",
    "pidesktop.ui.data.import_dialog",
    "pidesktop.ui.sidebar.trash_view",
    "pidesktop.ui.chat.export_dialog",
)


def _load_libraries() -> None:
    from pidesktop.ui.chat import markdown

    for name in LIBRARIES:
        importlib.import_module(name)
    markdown.warm_up()


async def warm_up() -> None:
    """Import the deferred modules now; a failure is logged (the same import runs again when it is needed)."""
    try:
        await asyncio.get_running_loop().run_in_executor(None, _load_libraries)
        for name in DIALOGS:
            await asyncio.sleep(0)  # a paint or a click between two imports
            importlib.import_module(name)
        await asyncio.sleep(0)
        gc_pauses.freeze("warm-up")  # the modules just loaded stay: full collector passes stop walking them
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("loading the deferred modules failed")
