# Prints the firmware's protocol tables as one JSON object, as MicroPython loads them:
#
#     micropython firmware/tools/dump_table.py
#
# {"protocol": 1, "messages": {name: [type, struct layout, [fields]]},
#  "config_keys": {"1": ["debounce_ms", 1, 200, 10], ...}, "node_types": {"1": "pindeck"...},
#  "nack_codes": {...}, "shutdown_codes": {...}}
# A test on the host side compares its own declarations with this.

import json
import sys


def _parent(path):
    return path.rsplit("/", 1)[0] if "/" in path else "."


sys.path.insert(0, _parent(__file__) + "/../common")

import wire  # noqa: E402  (needs the path above)


def _str_keys(table):
    out = {}
    for key in table:
        out[str(key)] = table[key]
    return out


def table():
    messages = {}
    for name in wire.MESSAGES:
        type_code, layout, fields = wire.MESSAGES[name]
        messages[name] = [type_code, layout, list(fields)]
    config_keys = {}
    for key in wire.CONFIG_KEYS:
        config_keys[str(key)] = list(wire.CONFIG_KEYS[key])
    return {
        "protocol": wire.PROTOCOL,
        "messages": messages,
        "config_keys": config_keys,
        "node_types": _str_keys(wire.NODE_TYPES),
        "nack_codes": {"unknown_type": wire.NACK_UNKNOWN_TYPE,
                       "bad_length": wire.NACK_BAD_LENGTH,
                       "out_of_bounds": wire.NACK_OUT_OF_BOUNDS,
                       "protocol_mismatch": wire.NACK_PROTOCOL,
                       "shut_down": wire.NACK_SHUT_DOWN},
        "shutdown_codes": {"impossible_input": wire.SHUTDOWN_IMPOSSIBLE_INPUT,
                           "internal_error": wire.SHUTDOWN_INTERNAL_ERROR,
                           "watchdog": wire.SHUTDOWN_WATCHDOG},
    }


print(json.dumps(table()))
