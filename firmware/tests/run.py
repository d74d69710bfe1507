# Runs the firmware tests under the MicroPython unix port:
#
#     micropython firmware/tests/run.py [name-part]
#
# Imports every test_*.py beside this file and calls each function whose name starts
# with test_ (only those containing name-part, if given). Prints one line per test and
# a last line "N passed, N failed"; exits 1 if any failed.

import os
import sys


def _parent(path):
    return path.rsplit("/", 1)[0] if "/" in path else "."


HERE = _parent(__file__)
FIRMWARE = HERE + "/.."
for folder in ("sim", "pindeck", "pockets", "foulline", "common"):
    sys.path.insert(0, FIRMWARE + "/" + folder)
sys.path.insert(0, HERE)


def main(argv):
    wanted = argv[1] if len(argv) > 1 else ""
    passed = 0
    failed = 0
    for filename in sorted(os.listdir(HERE)):
        if not (filename.startswith("test_") and filename.endswith(".py")):
            continue
        module_name = filename[:-3]
        module = __import__(module_name)
        for name in sorted(dir(module)):
            test = getattr(module, name)
            if not name.startswith("test_") or not callable(test):
                continue
            full = module_name + "." + name
            if wanted not in full:
                continue
            try:
                test()
            except Exception as exc:  # every failure is reported, the run goes on
                failed += 1
                print("FAIL " + full)
                sys.print_exception(exc)
            else:
                passed += 1
                print("ok   " + full)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


sys.exit(main(sys.argv))
