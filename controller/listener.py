"""The dashboard's listening socket, taken before anything else a service opens."""

from __future__ import annotations

import errno
import socket

from controller.errors import CannotServe


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on `host`:`port`; `CannotServe` naming the address and why not."""
    where = f"{host}:{port}"
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                    flags=socket.AI_PASSIVE)[0][0]
        return socket.create_server((host, port), family=family)
    except socket.gaierror as error:
        raise CannotServe(f"cannot serve the dashboard on {where}: {host} is not an address "
                          f"this machine knows ({error.strerror})") from None
    except OSError as error:
        why = {errno.EADDRINUSE: "the port is in use (another `hoyle serve`, or another "
                                 "program, listens there): stop it or choose another port",
               errno.EACCES: "this user may not listen on a port below 1024",
               errno.EADDRNOTAVAIL: f"{host} is not an address of this machine"}.get(
                   error.errno or 0, error.strerror or str(error))
        raise CannotServe(f"cannot serve the dashboard on {where}: {why}") from None
