# Sourced by scripts/serve and scripts/test: make .venv hold this project and its dev tools.
#
# Creates .venv with the first Python 3.11+ found when it is missing or broken, and runs
# `pip install -e '.[dev]'` only when pyproject.toml, setup.py or the native solver core's C
# sources changed since the last install (their hash is kept in .venv/.pyproject.sha256):
# the install builds that extension. Leaves .venv/bin first on PATH.

find_python() {
    local candidate
    for candidate in python3.11 python3.12 python3.13 python3.14 python3; do
        if command -v "$candidate" >/dev/null 2>&1 \
            && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    echo "error: Python 3.11 or newer is needed (tried python3.11 … python3)" >&2
    return 1
}

bootstrap_venv() {
    mkdir -p .venv
    # One bootstrap at a time (serve and test may start together): lock the folder itself,
    # which `venv --clear` empties but keeps. fd 9 is closed before the caller goes on.
    exec 9<.venv
    if command -v flock >/dev/null 2>&1; then flock 9; fi

    if ! .venv/bin/python -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        local python
        python="$(find_python)"
        echo "Creating .venv with $($python --version)…"
        "$python" -m venv --clear .venv
    fi

    local wanted
    wanted="$(cat pyproject.toml setup.py games/engine/solver/csrc/* | sha256sum | cut -d' ' -f1)"
    if [[ "$(cat .venv/.pyproject.sha256 2>/dev/null)" != "$wanted" ]]; then
        echo "Installing the project and its dependencies into .venv (pyproject.toml, setup.py or the solver's C sources changed)…"
        local started=$SECONDS
        # pip's own lines, one a package step, numbered: a first install takes a minute.
        if ! .venv/bin/python -m pip install --disable-pip-version-check --progress-bar off \
            -e '.[dev]' 2>&1 | awk '
                /^(Collecting|Building|Installing|Successfully|ERROR|error)/ {
                    n++; line = $0; if (length(line) > 100) line = substr(line, 1, 97) "..."
                    printf "  [%d] %s\n", n, line; fflush()
                }
                /^(ERROR|error)/ { failed = 1 }
                END { exit failed }'; then
            echo "error: pip install failed; run .venv/bin/python -m pip install -e '.[dev]' to see why" >&2
            return 1
        fi
        echo "$wanted" > .venv/.pyproject.sha256
        echo "Installed in $((SECONDS - started)) s."
    fi
    exec 9>&-
    export PATH="$PWD/.venv/bin:$PATH"
}
