"""Which local process holds an HTTP client's TCP connection (Linux ``/proc``), so the Activity can name it.

An HTTP session has no socket peer credentials: its TCP connection is found in ``/proc/net/tcp``
(and ``tcp6``) by its two ends, and the process by the socket's inode among this user's
processes' descriptors. Blocking (it reads ``/proc``): run it in a worker thread. None wherever
the answer cannot be had (another OS, a client on another computer, a process of another user).
"""

from __future__ import annotations

import ipaddress
import os
import socket
from pathlib import Path

PROC = Path("/proc")
Endpoint = tuple[str, int]


def _endpoint(text: str) -> Endpoint | None:
    """``0100007F:1F90`` (``/proc/net/tcp``'s host-order words of the address, then the port) as ``(ip, port)``."""
    address, _, port = text.partition(":")
    try:
        raw = bytes.fromhex(address)
        words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
        ip = ipaddress.ip_address(words)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped), int(port, 16)
    return str(ip), int(port, 16)


def _normal(endpoint: Endpoint) -> Endpoint | None:
    try:
        ip = ipaddress.ip_address(endpoint[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return str(ip), endpoint[1]


def connection_inode(client: Endpoint, server: Endpoint) -> int | None:
    """The inode of the client's end of the TCP connection ``client`` -> ``server``."""
    ends = _normal(client), _normal(server)
    if None in ends:
        return None
    for table in ("tcp", "tcp6"):
        try:
            lines = (PROC / "net" / table).read_text(encoding="ascii").splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and (_endpoint(fields[1]), _endpoint(fields[2])) == ends:
                return int(fields[9])
    return None


def inode_owner(inode: int) -> int | None:
    """The pid of this user's process that has the socket ``inode`` open (the lowest, when several do)."""
    target = f"socket:[{inode}]"
    uid = os.getuid()  # only where /proc exists (peer_pid checks): Linux
    for entry in sorted(PROC.iterdir(), key=lambda p: int(p.name) if p.name.isdigit() else 0):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid != uid:
                continue
            for fd in os.scandir(entry / "fd"):
                if os.readlink(fd.path) == target:
                    return int(entry.name)
        except OSError:
            continue
    return None


def peer_pid(client: Endpoint, server: Endpoint) -> int | None:
    """The pid of the local process whose TCP connection from ``client`` reached this host's ``server`` end."""
    if not hasattr(socket, "AF_UNIX") or not (PROC / "net" / "tcp").exists():
        return None
    inode = connection_inode(client, server)
    return inode_owner(inode) if inode else None
