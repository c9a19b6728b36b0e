"""`streamlint ...` and `python -m streamlint ...`: hands the process to the native binary."""
import os
import sys

from streamlint import binary


def main():
    exe = binary()
    try:
        os.execv(exe, ["streamlint"] + sys.argv[1:])
    except OSError as e:  # a damaged install: say which file, never a traceback
        sys.stderr.write("streamlint: cannot run %s: %s\n" % (exe, e.strerror))
        sys.exit(2)


if __name__ == "__main__":
    main()
