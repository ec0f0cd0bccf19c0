"""The network proxy setting (spec 004, 4.1 ``networkProxy``) and the HTTP clients that follow it.

``settings.networkProxy`` is ``{mode, url?, bypass?}``:

- ``system`` (also when absent or unreadable): the operating system's proxy
  configuration, as Python reads it (``HTTP(S)_PROXY``/``ALL_PROXY``/``NO_PROXY``,
  and the macOS and Windows system settings);
- ``direct``: no proxy at all, whatever the environment says;
- ``custom``: every request through ``url`` (an ``http://`` or ``https://``
  proxy), except to the hosts the bypass list names.

``url`` and ``bypass`` are kept while another mode is chosen and used only in
``custom``. A bypass list is a list of entries or one string of entries
separated by commas, semicolons or white space; an entry is a host name
(``example.com`` also covers its subdomains; ``*.example.com`` and
``.example.com`` cover only subdomains), an IP address or network
(``10.0.0.0/8``), ``<local>`` for names without a dot, or ``*`` for everything.

Every request the app makes to a provider or an MCP server over HTTP gets its
client from ``http_client`` (or its options from ``client_options``).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:  # httpx is imported with the first request, not at start-up (the host validates settings)
    import httpx

MODES = ("system", "direct", "custom")
PROXY_SCHEMES = ("http", "https")  # SOCKS would need httpx[socks], which the app does not ship


@dataclass(frozen=True)
class ProxySetting:
    mode: str = "system"
    url: str | None = None
    bypass: tuple[str, ...] = ()


def parse_bypass(value: object) -> tuple[str, ...]:
    """The entries of a bypass list (a list of strings, or one string), lower-cased, blanks dropped."""
    if isinstance(value, str):
        parts: list[object] = list(re.split(r"[,;\s]+", value))
    elif isinstance(value, (list, tuple)):
        parts = [piece for item in value if isinstance(item, str) for piece in re.split(r"[,;\s]+", item)]
    else:
        return ()
    return tuple(str(part).strip().lower() for part in parts if str(part).strip())


def url_problem(url: object) -> str | None:
    """Why ``url`` cannot be a proxy address, or None when it can."""
    if not isinstance(url, str) or not url.strip():
        return "a proxy address such as http://proxy.example.com:8080"
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018  (raises on a port that is not a number)
    except ValueError:
        return "a proxy address with a valid port"
    if parts.scheme.lower() not in PROXY_SCHEMES:
        return "an address starting with " + ", ".join(f"{scheme}://" for scheme in PROXY_SCHEMES)
    if not parts.hostname:
        return "an address with a host name"
    return None


def setting_problem(value: object) -> str | None:
    """What a ``networkProxy`` value should have been, or None when it can be stored."""
    if not isinstance(value, Mapping):
        return "an object {mode, url?, bypass?}"
    if value.get("mode") not in MODES:
        return "an object whose mode is one of " + ", ".join(MODES)
    url = value.get("url")
    if value.get("mode") == "custom" or url not in (None, ""):
        problem = url_problem(url)
        if problem is not None:
            return "an object whose url is " + problem
    bypass = value.get("bypass")
    if bypass is not None and not (
        isinstance(bypass, str) or (isinstance(bypass, list) and all(isinstance(item, str) for item in bypass))
    ):
        return "an object whose bypass is a list of host names or one string of them"
    return None


def setting_of(value: object) -> ProxySetting:
    """The stored ``networkProxy`` value as a setting; anything unreadable is ``system``."""
    if isinstance(value, ProxySetting):
        return value
    if not isinstance(value, Mapping):
        return ProxySetting()
    mode = value.get("mode")
    url = value.get("url")
    return ProxySetting(
        mode=mode if mode in MODES else "system",
        url=url.strip() if isinstance(url, str) and url.strip() else None,
        bypass=parse_bypass(value.get("bypass")),
    )


def bypassed(host: str, bypass: tuple[str, ...]) -> bool:
    """Whether a request to ``host`` goes around the proxy."""
    host = host.strip("[]").rstrip(".").lower()
    address = _address(host)
    for entry in bypass:
        if entry == "*":
            return True
        if entry == "<local>":
            if "." not in host and ":" not in host:
                return True
            continue
        name = entry.split("://", 1)[-1].rstrip("/")
        if address is not None:
            network = _network(name)
            if network is not None and address.version == network.version and address in network:
                return True
            continue
        name = re.sub(r":\d+$", "", name)
        if name.startswith("*."):
            if host.endswith(name[1:]):
                return True
        elif name.startswith("."):
            if host.endswith(name):
                return True
        elif host == name or host.endswith("." + name):
            return True
    return False


def proxy_for(setting: object, url: str) -> str | None:
    """The proxy a request to ``url`` goes through in ``custom`` mode, or None (direct, or not custom)."""
    chosen = setting_of(setting)
    if chosen.mode != "custom" or chosen.url is None or url_problem(chosen.url) is not None:
        return None
    host = urlsplit(url).hostname or ""
    return None if bypassed(host, chosen.bypass) else chosen.url


def client_options(setting: object, url: str) -> dict[str, Any]:
    """``httpx.Client``/``AsyncClient`` keyword arguments that make requests to ``url`` follow ``setting``.

    ``system`` lets httpx read the system configuration; ``direct`` and
    ``custom`` ignore it, so a proxy in the environment cannot override the choice.
    """
    chosen = setting_of(setting)
    if chosen.mode == "system":
        return {"trust_env": True}
    return {"trust_env": False, "proxy": proxy_for(chosen, url)}


def http_client(setting: object, url: str, **options: Any) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` for requests to ``url`` (one origin) that follows the proxy ``setting``."""
    import httpx

    return httpx.AsyncClient(**client_options(setting, url), **options)


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _network(entry: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    try:
        return ipaddress.ip_network(entry.strip("[]"), strict=False)
    except ValueError:
        return None
