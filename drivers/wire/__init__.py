"""The host side of the sensor-node wire protocol (version 1, see firmware/PROTOCOL.md).

- :mod:`drivers.wire.frame`: framing, CRC-16 and the receiver that resyncs in noise.
- :mod:`drivers.wire.messages`: every message declared once, the protocol's numbers.
- :mod:`drivers.wire.link`: :class:`NodeLink`, one node over USB serial, through
  unplugs and reboots; :mod:`drivers.wire.commands` sends its commands, and
  :mod:`drivers.wire.clock` maps the node's clock onto the host's (:class:`NodeClock`).
- :mod:`drivers.wire.nodes`: lane devices fed by nodes, with the interfaces of the
  directly wired ones (:func:`build_node_lane`); :mod:`drivers.wire.pockets`: a billiard
  table's pockets node (:class:`PocketsNode`).
- :mod:`drivers.wire.simnode`: the real firmware under the MicroPython unix port on a
  pseudo-terminal (the ``sim-firmware`` backend).
- :mod:`drivers.wire.cable`: a faulty cable between a node and the host: corrupted bytes,
  dropped and duplicated frames, stalls, unplug and replug.
- :mod:`drivers.wire.fake`: an in-memory node and serial port with the same fault knobs,
  for tests that need no MicroPython.

Errors: :class:`WireError` (bytes that break the protocol), :class:`ProtocolMismatch`
and :class:`WrongNode` (a node refused), :class:`CommandRefused` (a NACK), besides
``drivers.errors``' ``LinkTimeout`` and ``DeviceUnavailable``.
"""

from drivers.wire.clock import NodeClock, ticks_diff
from drivers.wire.frame import Frame, FrameReceiver, WireError, crc16, decode, encode
from drivers.wire.link import LinkState, LinkTiming, NodeLink
from drivers.wire.messages import (
    PROTOCOL_VERSION,
    CommandRefused,
    ConfigKey,
    NodeType,
    ProtocolMismatch,
    WrongNode,
    decode_message,
    encode_message,
    message_table_json,
)
from drivers.wire.nodes import (
    BallDetectorNode,
    EdgeClock,
    FoulLineNode,
    NodeInputs,
    PinDeckNode,
    PinsetterNode,
    build_node_lane,
)
from drivers.wire.pockets import PocketNode, PocketsNode

__all__ = [
    "PROTOCOL_VERSION",
    "BallDetectorNode",
    "CommandRefused",
    "ConfigKey",
    "EdgeClock",
    "FoulLineNode",
    "Frame",
    "FrameReceiver",
    "LinkState",
    "LinkTiming",
    "NodeClock",
    "NodeInputs",
    "NodeLink",
    "NodeType",
    "PinDeckNode",
    "PinsetterNode",
    "PocketNode",
    "PocketsNode",
    "ProtocolMismatch",
    "WireError",
    "WrongNode",
    "build_node_lane",
    "crc16",
    "decode",
    "decode_message",
    "encode",
    "encode_message",
    "message_table_json",
    "ticks_diff",
]
