"""Run ``python -m ingest …`` and SIGKILL it at one exact step of the lake protocol.

Usage: ``python tests/ingest/fuzz/killer.py <argv of python -m ingest>``, with
``HOSTAWARE_KILL_AT=N``
(kill at the N-th rename of a part or manifest file: ``os.replace`` outside ``_schemas/``) and
``HOSTAWARE_KILL_WHEN=before|after`` (before the rename: the temporary file is written, not yet
published; after it: published, not yet committed or, for a manifest, committed). ``N = 0``
kills nothing and writes the number of renames to ``HOSTAWARE_KILL_COUNT`` (a file). The ingest
package is not touched: ``os.replace`` is wrapped before it is imported.

``HOSTAWARE_PAUSE_AT=N`` pauses instead, before the N-th rename (its temporary file written):
the wrapper writes the file ``HOSTAWARE_PAUSED`` and waits until ``HOSTAWARE_RESUME`` exists,
so a test can run a second ingest while the first is half-way.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

_REAL = os.replace
_AT = int(os.environ.get("HOSTAWARE_KILL_AT", "0"))
_AFTER = os.environ.get("HOSTAWARE_KILL_WHEN", "before") == "after"
_SEEN = [0]
_PAUSE_AT = int(os.environ.get("HOSTAWARE_PAUSE_AT", "0"))


def _replace(source, target, *args, **kwargs):
    if "_schemas" in Path(target).parts:
        return _REAL(source, target, *args, **kwargs)
    _SEEN[0] += 1
    if _SEEN[0] == _PAUSE_AT:
        Path(os.environ["HOSTAWARE_PAUSED"]).write_text(str(source))
        while not Path(os.environ["HOSTAWARE_RESUME"]).exists():
            time.sleep(0.05)
    if _SEEN[0] == _AT and not _AFTER:
        os.kill(os.getpid(), signal.SIGKILL)
    result = _REAL(source, target, *args, **kwargs)
    if _SEEN[0] == _AT and _AFTER:
        os.kill(os.getpid(), signal.SIGKILL)
    return result


os.replace = _replace

from ingest.__main__ import main  # noqa: E402 - after the patch, on purpose

status = main(sys.argv[1:])
if _AT == 0 and os.environ.get("HOSTAWARE_KILL_COUNT"):
    Path(os.environ["HOSTAWARE_KILL_COUNT"]).write_text(str(_SEEN[0]))
sys.exit(status)
