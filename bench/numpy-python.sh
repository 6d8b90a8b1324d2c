# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the bench scripts that analyse with numpy: sets PYTHON to a python3 that has it
# ($PYTHON if given, else python3 on PATH, else Debian's /usr/bin/python3 with python3-numpy).
if [ -z "${PYTHON:-}" ]; then
    for candidate in python3 /usr/bin/python3; do
        if "$candidate" -c 'import numpy' 2>/dev/null; then PYTHON=$candidate; break; fi
    done
fi
"${PYTHON:-python3}" -c 'import numpy' 2>/dev/null || { echo "${0##*/}: no python3 with numpy (apt-get install python3-numpy, or set PYTHON)" >&2; exit 1; }
