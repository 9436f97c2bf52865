# Sourced by scripts/web-research and hooks/run (POSIX sh).
#
# web_research_python ROOT [--prepare|--force-prepare]
#   Prints the path of a Python that can import the plugin's runtime dependencies,
#   searching in this order (first hit wins):
#     1. $WEB_RESEARCH_PYTHON                       (explicit choice)
#     2. ROOT/.venv/bin/python                      (developer checkout, if it has the deps)
#     3. a remembered interpreter: the pointer file python-<key> in the data
#        directory, then in the per-user directory (see below)
#     4. a private environment DIR/venv-<key> in either directory
#     5. python3 / python3.1x on PATH that already has the dependencies
#        (skipped when WEB_RESEARCH_NO_SYSTEM_PYTHON=1)
#     6. with --prepare: a new private environment built from ROOT/requirements.lock
#   <key> is the checksum of requirements.lock, so a new lock gets a new environment.
#   Returns 1 (reason on stderr) when there is none.
#
# Directories: the data directory is $CLAUDE_PLUGIN_DATA (hooks get it); the per-user
# directory is $WEB_RESEARCH_STATE_DIR, else ${XDG_DATA_HOME:-~/.local/share}/web-research
# (used when CLAUDE_PLUGIN_DATA is unset: the Bash tool's environment, a terminal).
# Whoever finds or builds an interpreter writes its path to python-<key> in BOTH
# directories, so the hooks and the command the model runs use the same environment.
#
# Preparing is safe when several processes try at once: a mkdir lock elects one
# builder, which builds in a temporary folder and renames it into place; the others
# wait for the rename. A failed build leaves python-<key>.failed, and --prepare does
# not retry for 10 minutes (--force-prepare does), so hooks stay fast while broken.

_wr_user_dir() {
    if [ -n "${WEB_RESEARCH_STATE_DIR:-}" ]; then
        printf '%s\n' "$WEB_RESEARCH_STATE_DIR"
    else
        printf '%s/web-research\n' "${XDG_DATA_HOME:-${HOME:-/tmp}/.local/share}"
    fi
}

_wr_data_dir() {
    if [ -n "${CLAUDE_PLUGIN_DATA:-}" ]; then printf '%s\n' "$CLAUDE_PLUGIN_DATA"; else _wr_user_dir; fi
}

_wr_lock_key() {
    if [ -f "$1/requirements.lock" ]; then
        # shellcheck disable=SC2046
        set -- $(cksum < "$1/requirements.lock")
        printf '%s\n' "$1"
    else
        printf 'nolock\n'
    fi
}

# Can interpreter $1 run the plugin? (3.10+, and the runtime imports succeed)
_wr_has_deps() {
    "$1" -c 'import sys
if sys.version_info < (3, 10):
    sys.exit(1)
import yaml, frontmatter, jsonschema, trafilatura, pypdf' >/dev/null 2>&1
}

# Write "python-<key>" pointers: _wr_remember PY KEY DIR...
_wr_remember() {
    _wr_rp=$1 _wr_rk=$2
    shift 2
    for _wr_rd in "$@"; do
        _wr_rf="$_wr_rd/python-$_wr_rk"
        if [ -f "$_wr_rf" ] && [ "$(cat "$_wr_rf" 2>/dev/null)" = "$_wr_rp" ]; then continue; fi
        mkdir -p "$_wr_rd" 2>/dev/null || continue
        printf '%s\n' "$_wr_rp" > "$_wr_rf.tmp.$$" 2>/dev/null && mv -f "$_wr_rf.tmp.$$" "$_wr_rf" 2>/dev/null
        rm -f "$_wr_rf.tmp.$$" 2>/dev/null
    done
    return 0
}

# A Python 3.10+ with the venv module to build the private environment from.
_wr_base_python() {
    for _wr_bc in ${WEB_RESEARCH_BASE_PYTHON:-} python3 python3.13 python3.12 python3.11 python3.10; do
        _wr_bp=$(command -v "$_wr_bc" 2>/dev/null) || continue
        if "$_wr_bp" -c 'import sys, venv, ensurepip; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
            >/dev/null 2>&1; then
            "$_wr_bp" -c 'import sys; print(sys.executable)'
            return 0
        fi
    done
    return 1
}

# web_research_prepare ROOT DIR KEY: build DIR/venv-KEY; prints its python.
web_research_prepare() {
    _wp_root=$1 _wp_dir=$2 _wp_key=$3
    _wp_final="$_wp_dir/venv-$_wp_key"
    _wp_lock="$_wp_dir/venv-$_wp_key.lock"
    _wp_log="$_wp_dir/logs/venv-$_wp_key.log"
    mkdir -p "$_wp_dir/logs" || { echo "cannot create $_wp_dir" >&2; return 1; }
    _wp_waited=0
    while ! mkdir "$_wp_lock" 2>/dev/null; do
        if [ -x "$_wp_final/bin/python" ]; then printf '%s\n' "$_wp_final/bin/python"; return 0; fi
        _wp_pid=$(cat "$_wp_lock/pid" 2>/dev/null)
        if [ -n "$_wp_pid" ] && ! kill -0 "$_wp_pid" 2>/dev/null; then
            rm -rf "$_wp_lock"  # its builder died
            continue
        fi
        if [ "$_wp_waited" -ge "${WEB_RESEARCH_ENV_WAIT:-170}" ]; then
            echo "timed out waiting for another process to prepare $_wp_final" >&2
            return 1
        fi
        sleep 1
        _wp_waited=$((_wp_waited + 1))
    done
    printf '%s\n' "$$" > "$_wp_lock/pid"
    if [ -x "$_wp_final/bin/python" ]; then
        rm -rf "$_wp_lock"
        printf '%s\n' "$_wp_final/bin/python"
        return 0
    fi
    _wp_tmp="$_wp_dir/.venv-$_wp_key.tmp.$$"
    rm -rf "$_wp_dir/.venv-$_wp_key.tmp."*  # left by builders that were killed (we hold the lock)
    if ! _wp_base=$(_wr_base_python); then
        rm -rf "$_wp_lock"
        echo "no Python 3.10 or newer with the venv module was found on PATH" >&2
        return 1
    fi
    if "$_wp_base" -m venv "$_wp_tmp" > "$_wp_log" 2>&1 \
        && "$_wp_tmp/bin/python" -m pip install --disable-pip-version-check --no-input --quiet \
            -r "$_wp_root/requirements.lock" >> "$_wp_log" 2>&1 \
        && _wr_has_deps "$_wp_tmp/bin/python" \
        && mv "$_wp_tmp" "$_wp_final"; then
        rm -rf "$_wp_lock"
        printf '%s\n' "$_wp_final/bin/python"
        return 0
    fi
    rm -rf "$_wp_tmp" "$_wp_lock"
    echo "could not build the private Python environment; details in $_wp_log" >&2
    return 1
}

web_research_python() {
    _wr_root=$1 _wr_mode=${2:-}
    if [ -n "${WEB_RESEARCH_PYTHON:-}" ]; then
        if [ -x "$WEB_RESEARCH_PYTHON" ] || command -v "$WEB_RESEARCH_PYTHON" >/dev/null 2>&1; then
            printf '%s\n' "$WEB_RESEARCH_PYTHON"
            return 0
        fi
        echo "WEB_RESEARCH_PYTHON=$WEB_RESEARCH_PYTHON is not an executable" >&2
        return 1
    fi
    _wr_key=$(_wr_lock_key "$_wr_root")
    _wr_data=$(_wr_data_dir)
    _wr_user=$(_wr_user_dir)
    # A developer checkout's .venv comes first, once it has been seen to import the
    # runtime dependencies (remembered like any other candidate, in python-<key>).
    _wr_dev="$_wr_root/.venv/bin/python"
    if [ -x "$_wr_dev" ]; then
        if [ "$(cat "$_wr_data/python-$_wr_key" 2>/dev/null)" = "$_wr_dev" ] || _wr_has_deps "$_wr_dev"; then
            _wr_remember "$_wr_dev" "$_wr_key" "$_wr_data" "$_wr_user"
            printf '%s\n' "$_wr_dev"
            return 0
        fi
        echo "web-research: $_wr_dev cannot import the runtime dependencies (yaml, frontmatter, jsonschema, trafilatura, pypdf); not using it. Fix it with: \"$_wr_dev\" -m pip install -r \"$_wr_root/requirements.lock\"" >&2
    fi
    for _wr_dir in "$_wr_data" "$_wr_user"; do
        if [ -f "$_wr_dir/python-$_wr_key" ]; then
            _wr_py=$(cat "$_wr_dir/python-$_wr_key" 2>/dev/null)
            if [ -n "$_wr_py" ] && [ -x "$_wr_py" ]; then printf '%s\n' "$_wr_py"; return 0; fi
        fi
        if [ -x "$_wr_dir/venv-$_wr_key/bin/python" ]; then
            _wr_remember "$_wr_dir/venv-$_wr_key/bin/python" "$_wr_key" "$_wr_data" "$_wr_user"
            printf '%s\n' "$_wr_dir/venv-$_wr_key/bin/python"
            return 0
        fi
    done
    _wr_failed="$_wr_data/python-$_wr_key.failed"
    if [ "$_wr_mode" != --force-prepare ] && [ -f "$_wr_failed" ] \
        && [ -n "$(find "$_wr_failed" -mmin -10 2>/dev/null)" ]; then
        cat "$_wr_failed" >&2
        return 1
    fi
    if [ "${WEB_RESEARCH_NO_SYSTEM_PYTHON:-}" != 1 ]; then
        for _wr_cand in python3 python3.13 python3.12 python3.11 python3.10; do
            _wr_py=$(command -v "$_wr_cand" 2>/dev/null) || continue
            if _wr_has_deps "$_wr_py"; then
                _wr_py=$("$_wr_py" -c 'import sys; print(sys.executable)')
                _wr_remember "$_wr_py" "$_wr_key" "$_wr_data" "$_wr_user"
                printf '%s\n' "$_wr_py"
                return 0
            fi
        done
    fi
    if [ "$_wr_mode" = --prepare ] || [ "$_wr_mode" = --force-prepare ]; then
        mkdir -p "$_wr_data" 2>/dev/null || { echo "cannot create $_wr_data" >&2; return 1; }
        if _wr_py=$(web_research_prepare "$_wr_root" "$_wr_data" "$_wr_key" 2> "$_wr_failed.tmp.$$"); then
            rm -f "$_wr_failed" "$_wr_failed.tmp.$$"
            _wr_remember "$_wr_py" "$_wr_key" "$_wr_data" "$_wr_user"
            printf '%s\n' "$_wr_py"
            return 0
        fi
        mv -f "$_wr_failed.tmp.$$" "$_wr_failed" 2>/dev/null
        cat "$_wr_failed" >&2
        return 1
    fi
    echo "no Python with the plugin's dependencies (yaml, frontmatter, jsonschema, trafilatura, pypdf) was found" >&2
    return 1
}
