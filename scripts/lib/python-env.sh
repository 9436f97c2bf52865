# shellcheck shell=sh
# Sourced by scripts/web-research and hooks/run (POSIX sh).
#
# web_research_python ROOT [--force-prepare|--setup]
#   Prints the path of a Python that can import the plugin's runtime dependencies,
#   searching in this order (first hit wins):
#     1. $WEB_RESEARCH_PYTHON                       (explicit choice)
#     2. ROOT/.venv/bin/python                      (developer checkout, if it has the deps)
#     3. a remembered interpreter: the pointer file python-<key> in the data
#        environment directory, then in the per-user one (see below), used only when
#        it is one this search picks itself (_wr_trusted: the pointer cannot redirect)
#     4. a private environment DIR/venv-<key> in either directory
#     5. python3 / python3.1x on PATH that already has every dependency, fetch's too
#        (skipped when WEB_RESEARCH_NO_SYSTEM_PYTHON=1)
#     6. with --force-prepare or --setup: a new private environment built from the core lock
#   <key> is the checksum of ROOT/requirements.lock and ROOT/requirements-fetch.lock,
#   so new locks get a new environment. Returns 1 (reason on stderr) when there is none.
#   --setup also installs fetch's libraries into the private environment.
#
# The private environment is built in two steps, each when it is first needed and
# each saying on stderr (the Bash tool's output, which the person sees) that it starts
# and when it is done: the core (requirements.lock: PyYAML, python-frontmatter,
# jsonschema, markdown-it-py; what the hooks, `start`, `verify` and `status` need) the
# first time the `web-research` command runs, then `fetch`'s libraries
# (requirements-fetch.lock: trafilatura, lxml, pypdf, ...) at the first `fetch`
# (web_research_fetch_ready; DIR/venv-<key>/fetch.ready marks them installed). The
# hooks never build: a build in a hook is invisible to the person and bounded by the
# hook's timeout. When the second step fails the environment is kept and
# DIR/venv-<key>/fetch.failed says why; only `fetch` is affected. Both locks are
# hash-pinned: uv installs them when it is on PATH, else venv + pip (measured
# figures: README, "Install in Claude Code").
#
# Environment directories hold nothing but this cache (venvs, pointers, build logs),
# apart from the run records in <data>/sessions and <data>/logs:
#   data:     $CLAUDE_PLUGIN_DATA/env (hooks get CLAUDE_PLUGIN_DATA), else the per-user one
#   per-user: $WEB_RESEARCH_STATE_DIR/env, else ${XDG_CACHE_HOME:-~/.cache}/web-research
# The Bash tool's environment and a terminal have no CLAUDE_PLUGIN_DATA. Whoever finds
# or builds an interpreter writes its path to python-<key> in BOTH directories, so the
# hooks and the command the model runs use the same environment.
#
# Preparing is safe when several processes try at once: a mkdir lock elects one
# builder, which builds in a temporary folder and renames it into place; the others
# wait for the rename. A failed build leaves python-<key>.failed, which the hooks
# report once per session.

_wr_env_user_dir() {
    if [ -n "${WEB_RESEARCH_STATE_DIR:-}" ]; then
        printf '%s/env\n' "$WEB_RESEARCH_STATE_DIR"
    else
        printf '%s/web-research\n' "${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}"
    fi
}

_wr_env_data_dir() {
    if [ -n "${CLAUDE_PLUGIN_DATA:-}" ]; then printf '%s/env\n' "$CLAUDE_PLUGIN_DATA"; else _wr_env_user_dir; fi
}

_wr_lock_key() {
    if [ -f "$1/requirements.lock" ]; then
        # shellcheck disable=SC2046
        set -- $(cat "$1/requirements.lock" "$1/requirements-fetch.lock" 2>/dev/null | cksum)
        printf '%s\n' "$1"
    else
        printf 'nolock\n'
    fi
}

# Can interpreter $1 run the hooks and every command but fetch? (3.10+, core imports)
_wr_has_core() {
    "$1" -c 'import sys
if sys.version_info < (3, 10):
    sys.exit(1)
import yaml, frontmatter, jsonschema' >/dev/null 2>&1
}

# Does interpreter $1 have every runtime dependency, fetch's included?
_wr_has_deps() {
    "$1" -c 'import sys
if sys.version_info < (3, 10):
    sys.exit(1)
import yaml, frontmatter, jsonschema, trafilatura, pypdf' >/dev/null 2>&1
}

# _wr_read_line FILE: its first line in _wr_line ('' when there is none), read by the
# shell itself: every hook reads the pointers, and a `$(cat ...)` costs it a process.
_wr_read_line() {
    _wr_line=
    if [ -f "$1" ]; then IFS= read -r _wr_line < "$1" 2>/dev/null; fi
    return 0
}

# _wr_trusted PY ROOT KEY DATA USER: may the remembered interpreter PY be used? A pointer
# file is only a cache of this search, never an authority: anything that can write the
# user's cache could point it at a program of its own, and a later `fetch` would run that
# program and store whatever page it likes. So PY must be one the search itself picks: the
# developer checkout's ROOT/.venv, a private venv-KEY in one of the two environment
# directories, or a Python on PATH that reports PY as its own sys.executable (what the
# search remembers for one found there; one bare interpreter start). Otherwise the pointer
# is ignored and the search goes on.
_wr_trusted() {
    case $1 in
        "$2/.venv/bin/python" | "$4/venv-$3/bin/python" | "$5/venv-$3/bin/python") return 0 ;;
    esac
    for _wr_tc in python3 python3.13 python3.12 python3.11 python3.10; do
        _wr_tp=$(command -v "$_wr_tc" 2>/dev/null) || continue
        [ "$_wr_tp" = "$1" ] && return 0
        [ "$("$_wr_tp" -c 'import sys; print(sys.executable)' 2>/dev/null)" = "$1" ] && return 0
    done
    return 1
}

# Write "python-<key>" pointers: _wr_remember PY KEY DIR...
_wr_remember() {
    _wr_rp=$1 _wr_rk=$2
    shift 2
    for _wr_rd in "$@"; do
        _wr_rf="$_wr_rd/python-$_wr_rk"
        _wr_read_line "$_wr_rf"
        if [ "$_wr_line" = "$_wr_rp" ]; then continue; fi
        mkdir -p "$_wr_rd" 2>/dev/null || continue
        printf '%s\n' "$_wr_rp" > "$_wr_rf.tmp.$$" 2>/dev/null && mv -f "$_wr_rf.tmp.$$" "$_wr_rf" 2>/dev/null
        rm -f "$_wr_rf.tmp.$$" 2>/dev/null
    done
    return 0
}

# A Python 3.10+ to build the private environment from (with the venv module,
# unless uv builds it).
_wr_base_python() {
    _wr_bm='import sys, venv, ensurepip'
    [ -n "$(_wr_uv)" ] && _wr_bm='import sys'
    for _wr_bc in ${WEB_RESEARCH_BASE_PYTHON:-} python3 python3.13 python3.12 python3.11 python3.10; do
        _wr_bp=$(command -v "$_wr_bc" 2>/dev/null) || continue
        if "$_wr_bp" -c "$_wr_bm"'; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
            >/dev/null 2>&1; then
            "$_wr_bp" -c 'import sys; print(sys.executable)'
            return 0
        fi
    done
    return 1
}

# The uv on PATH, if any (prints nothing otherwise).
_wr_uv() {
    command -v uv 2>/dev/null || :
}

# The package index the installers use: uv's own setting, pip's environment or
# configuration (uv is given the same), else PyPI. _wr_index_url BASE_PYTHON
_wr_index_url() {
    if [ -n "${UV_INDEX_URL:-}" ]; then printf '%s\n' "$UV_INDEX_URL"; return 0; fi
    if [ -n "${UV_DEFAULT_INDEX:-}" ]; then printf '%s\n' "$UV_DEFAULT_INDEX"; return 0; fi
    if [ -n "${PIP_INDEX_URL:-}" ]; then printf '%s\n' "$PIP_INDEX_URL"; return 0; fi
    _wr_iu=$("$1" -m pip config list 2>/dev/null \
        | sed -n "s/^\(global\|install\)\.index-url='\(.*\)'\$/\2/p" | tail -n 1)
    printf '%s\n' "${_wr_iu:-https://pypi.org/simple}"
}

# Why an install failed, in one line, from its log: the last error line, with
# the deepest cause when uv reports a chain of them.
_wr_log_reason() {
    _wr_le=$(grep -i '^error' "$1" 2>/dev/null | tail -n 1)
    _wr_ll=$(grep -i '^[[:space:]]*\(cause\|caused by\):' "$1" 2>/dev/null | tail -n 1 | sed 's/^[[:space:]]*//')
    [ -n "$_wr_ll" ] || _wr_ll=$(grep -v -i '^\(warning\|hint\)' "$1" 2>/dev/null | grep -v '^[[:space:]]*$' \
        | tail -n 1 | sed 's/^[[:space:]]*//')
    if [ -n "$_wr_le" ] && [ "$_wr_le" != "$_wr_ll" ]; then _wr_ll="$_wr_le ($_wr_ll)"; fi
    printf '%s\n' "${_wr_ll:-no output}" | cut -c 1-400
}

# _wr_make_venv BASE_PYTHON DIR LOG: an empty environment (uv's has no pip).
_wr_make_venv() {
    if [ -n "$(_wr_uv)" ]; then
        UV_PYTHON_DOWNLOADS=never "$(_wr_uv)" venv --quiet --python "$1" "$2" >> "$3" 2>&1
    else
        "$1" -m venv "$2" >> "$3" 2>&1
    fi
}

# _wr_install_lock PYTHON LOCK INDEX LOG: install a hash-pinned lock into PYTHON's
# environment. uv is given pip's index and trusts what pip trusts: the system's
# certificates (pip's default trust store is not uv's) and PIP_CERT.
_wr_install_lock() {
    if [ -n "$(_wr_uv)" ]; then
        (
            export UV_INDEX_URL="$3" UV_PYTHON_DOWNLOADS=never
            if [ -z "${UV_NATIVE_TLS:-}${UV_SYSTEM_CERTS:-}" ]; then export UV_NATIVE_TLS=1 UV_SYSTEM_CERTS=1; fi
            if [ -z "${SSL_CERT_FILE:-}" ] && [ -n "${PIP_CERT:-}" ]; then export SSL_CERT_FILE="$PIP_CERT"; fi
            exec "$(_wr_uv)" pip install --quiet --python "$1" --require-hashes -r "$2"
        ) >> "$4" 2>&1
    else
        # --no-compile, as uv does: byte-compiling every installed file costs the first use
        # seconds of CPU; Python compiles what it imports, once.
        "$1" -m pip install --disable-pip-version-check --no-input --quiet --no-compile --require-hashes \
            -r "$2" >> "$4" 2>&1
    fi
}

# _wr_add_fetch ROOT VENV INDEX LOG: install fetch's libraries; on failure leave
# VENV/fetch.failed (the reason, one line) and still succeed.
_wr_add_fetch() {
    if [ ! -f "$1/requirements-fetch.lock" ]; then return 0; fi
    if _wr_install_lock "$2/bin/python" "$1/requirements-fetch.lock" "$3" "$4" \
        && _wr_has_deps "$2/bin/python"; then
        rm -f "$2/fetch.failed"
        return 0
    fi
    printf '%s\n' "could not install the libraries of web-research fetch (trafilatura, lxml, lxml_html_clean, pypdf) from the package index $3: $(_wr_log_reason "$4") (full log: $4)" \
        > "$2/fetch.failed"
    return 0
}

# _wr_fail FILE MESSAGE: report why preparing failed, on stderr and in FILE.
_wr_fail() {
    printf '%s\n' "$2" >&2
    printf '%s\n' "$2" > "$1.tmp.$$" 2>/dev/null && mv -f "$1.tmp.$$" "$1" 2>/dev/null
    rm -f "$1.tmp.$$" 2>/dev/null
    return 0
}

# The line said once, when a build starts: what, where, how long (README's measured figures).
_wr_announce() {
    if [ -n "$(_wr_uv)" ]; then _wr_an='with uv; takes about 10 s'; else _wr_an='with pip; takes about a minute'; fi
    echo "web-research: preparing its Python environment once (PyYAML, python-frontmatter, jsonschema, markdown-it-py; fetch's libraries come at the first fetch) in $1 $_wr_an..." >&2
}

# Seconds since the epoch (for the "done in N s" lines).
_wr_now() {
    date +%s 2>/dev/null || echo 0
}

# _wr_break_stale_lock LOCK: remove LOCK if the process that holds it died. Two
# waiters may both see the dead holder; the check and the removal happen under a
# second lock, so the slower one cannot remove the lock the faster one took since.
_wr_break_stale_lock() {
    _wr_bl=0
    find "$1.break" -maxdepth 0 -mmin +1 -exec rm -rf {} + 2>/dev/null  # left by a killed breaker
    mkdir "$1.break" 2>/dev/null || return 1
    _wr_bpid=$(cat "$1/pid" 2>/dev/null)
    if [ -n "$_wr_bpid" ] && ! kill -0 "$_wr_bpid" 2>/dev/null; then
        rm -rf "$1"
        _wr_bl=1
    fi
    rm -rf "$1.break"
    [ "$_wr_bl" = 1 ]
}

# web_research_prepare ROOT DIR KEY: build DIR/venv-KEY; prints its python. On
# failure the reason goes to stderr and to DIR/python-KEY.failed.
web_research_prepare() {
    _wp_root=$1 _wp_dir=$2 _wp_key=$3
    _wp_failed="$_wp_dir/python-$_wp_key.failed"
    _wp_final="$_wp_dir/venv-$_wp_key"
    _wp_lock="$_wp_dir/venv-$_wp_key.lock"
    _wp_log="$_wp_dir/logs/venv-$_wp_key.log"
    mkdir -p "$_wp_dir/logs" || { echo "cannot create $_wp_dir/logs" >&2; return 1; }
    _wp_waited=0
    while ! mkdir "$_wp_lock" 2>/dev/null; do
        if [ -x "$_wp_final/bin/python" ]; then printf '%s\n' "$_wp_final/bin/python"; return 0; fi
        if _wr_break_stale_lock "$_wp_lock"; then continue; fi
        if [ "$_wp_waited" -ge "${WEB_RESEARCH_ENV_WAIT:-170}" ]; then
            _wr_fail "$_wp_failed" "timed out waiting for another process to prepare $_wp_final"
            return 1
        fi
        [ "$_wp_waited" -eq 0 ] && echo "web-research: waiting for another process to prepare its Python environment in $_wp_final..." >&2
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
        _wr_fail "$_wp_failed" "no Python 3.10 or newer with the venv module was found on PATH; install one, or set WEB_RESEARCH_PYTHON to a Python 3.10+ that has PyYAML, python-frontmatter and jsonschema"
        return 1
    fi
    _wr_announce "$_wp_final"
    _wp_start=$(_wr_now)
    _wp_index=$(_wr_index_url "$_wp_base")
    : > "$_wp_log"
    rm -f "$_wp_failed"
    if _wr_make_venv "$_wp_base" "$_wp_tmp" "$_wp_log" \
        && _wr_install_lock "$_wp_tmp/bin/python" "$_wp_root/requirements.lock" "$_wp_index" "$_wp_log" \
        && _wr_has_core "$_wp_tmp/bin/python" \
        && mv "$_wp_tmp" "$_wp_final"; then
        rm -rf "$_wp_lock"
        echo "web-research: Python environment ready in $(($(_wr_now) - _wp_start)) s: $_wp_final" >&2
        printf '%s\n' "$_wp_final/bin/python"
        return 0
    fi
    rm -rf "$_wp_tmp" "$_wp_lock"
    _wr_fail "$_wp_failed" "could not prepare the plugin's Python environment from the package index $_wp_index: $(_wr_log_reason "$_wp_log") (full log: $_wp_log). Fix: set PIP_INDEX_URL to a package index that is reachable (uv uses it too), or set WEB_RESEARCH_PYTHON to a Python 3.10+ that has PyYAML, python-frontmatter and jsonschema"
    return 1
}

# web_research_fetch_ready ROOT PYTHON [--force]: before `fetch`, give PYTHON's environment
# fetch's libraries when it is the plugin's own (DIR/venv-<key>) and lacks them: installed
# once, by one process (the others wait), saying on stderr that it starts and when it is
# done. Any other Python is the person's: `fetch` says what is missing there and how to fix
# it. After a failure (DIR/venv-<key>/fetch.failed) it tries again only after 10 minutes,
# or at once with --force (hooks/run --setup). Returns 1 when the libraries are not there.
web_research_fetch_ready() {
    _wf_venv=${2%/bin/python}
    [ -f "$_wf_venv/fetch.ready" ] && return 0
    case ${_wf_venv##*/} in venv-*) ;; *) return 0 ;; esac
    [ -f "$_wf_venv/pyvenv.cfg" ] && [ -f "$1/requirements-fetch.lock" ] || return 0
    if [ "${3:-}" != --force ] && [ -f "$_wf_venv/fetch.failed" ] \
        && [ -n "$(find "$_wf_venv/fetch.failed" -mmin -10 2>/dev/null)" ]; then
        return 1
    fi
    _wf_lock="$_wf_venv.fetch.lock"
    _wf_waited=0
    while ! mkdir "$_wf_lock" 2>/dev/null; do
        [ -f "$_wf_venv/fetch.ready" ] && return 0
        if _wr_break_stale_lock "$_wf_lock"; then continue; fi
        if [ "$_wf_waited" -ge "${WEB_RESEARCH_ENV_WAIT:-170}" ]; then
            echo "web-research: timed out waiting for another process to install fetch's libraries into $_wf_venv" >&2
            return 1
        fi
        [ "$_wf_waited" -eq 0 ] && echo "web-research: waiting for another process to install fetch's libraries into $_wf_venv..." >&2
        sleep 1
        _wf_waited=$((_wf_waited + 1))
    done
    printf '%s\n' "$$" > "$_wf_lock/pid"
    if [ -f "$_wf_venv/fetch.ready" ]; then rm -rf "$_wf_lock"; return 0; fi
    _wf_log="${_wf_venv%/*}/logs/${_wf_venv##*/}.log"
    mkdir -p "${_wf_log%/*}" 2>/dev/null
    if [ -n "$(_wr_uv)" ]; then _wf_how='with uv; takes about 10 s'; else _wf_how='with pip; takes about a minute'; fi
    echo "web-research: installing fetch's page-extraction libraries (trafilatura, lxml, pypdf) once, into $_wf_venv $_wf_how..." >&2
    _wf_start=$(_wr_now)
    _wr_add_fetch "$1" "$_wf_venv" "$(_wr_index_url "$2")" "$_wf_log"
    if [ -f "$_wf_venv/fetch.failed" ]; then
        rm -rf "$_wf_lock"
        echo "web-research: the hooks and verify work, but fetch will not: $(cat "$_wf_venv/fetch.failed")" >&2
        return 1
    fi
    : > "$_wf_venv/fetch.ready"
    rm -rf "$_wf_lock"
    echo "web-research: fetch's libraries installed in $(($(_wr_now) - _wf_start)) s" >&2
    return 0
}

# The reason the last build failed, one line (for the hooks' message to the user): the
# hooks' data directory, then the per-user one, where the command (which has no
# CLAUDE_PLUGIN_DATA) records it.
web_research_env_problem() {
    for _wr_pd in "$(_wr_env_data_dir)" "$(_wr_env_user_dir)"; do
        _wr_pf="$_wr_pd/python-$(_wr_lock_key "$1").failed"
        if [ -f "$_wr_pf" ]; then tr '\n\t' '  ' < "$_wr_pf" | cut -c 1-600; return 0; fi
    done
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
    _wr_data=$(_wr_env_data_dir)
    _wr_user=$(_wr_env_user_dir)
    # A developer checkout's .venv comes first, once it has been seen to import the
    # runtime dependencies (remembered like any other candidate, in python-<key>).
    _wr_dev="$_wr_root/.venv/bin/python"
    if [ -x "$_wr_dev" ]; then
        _wr_read_line "$_wr_data/python-$_wr_key"
        if [ "$_wr_line" = "$_wr_dev" ] || _wr_has_core "$_wr_dev"; then
            _wr_remember "$_wr_dev" "$_wr_key" "$_wr_data" "$_wr_user"
            printf '%s\n' "$_wr_dev"
            return 0
        fi
        echo "web-research: $_wr_dev cannot import the runtime dependencies (yaml, frontmatter, jsonschema); not using it. Fix it with: \"$_wr_dev\" -m pip install -r \"$_wr_root/requirements.lock\"" >&2
    fi
    for _wr_dir in "$_wr_data" "$_wr_user"; do
        _wr_read_line "$_wr_dir/python-$_wr_key"
        _wr_py=$_wr_line
        [ -n "$_wr_py" ] && [ -x "$_wr_py" ] && _wr_trusted "$_wr_py" "$_wr_root" "$_wr_key" "$_wr_data" "$_wr_user" \
            || _wr_py=
        if [ -z "$_wr_py" ] && [ -x "$_wr_dir/venv-$_wr_key/bin/python" ]; then
            _wr_py="$_wr_dir/venv-$_wr_key/bin/python"
            _wr_remember "$_wr_py" "$_wr_key" "$_wr_data" "$_wr_user"
        fi
        if [ -n "$_wr_py" ]; then
            [ "$_wr_mode" = --setup ] && web_research_fetch_ready "$_wr_root" "$_wr_py" --force
            printf '%s\n' "$_wr_py"
            return 0
        fi
    done
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
    if [ -n "$_wr_mode" ]; then
        mkdir -p "$_wr_data" 2>/dev/null || { echo "cannot create $_wr_data" >&2; return 1; }
        _wr_py=$(web_research_prepare "$_wr_root" "$_wr_data" "$_wr_key") || return 1
        _wr_remember "$_wr_py" "$_wr_key" "$_wr_data" "$_wr_user"
        [ "$_wr_mode" = --setup ] && web_research_fetch_ready "$_wr_root" "$_wr_py" --force
        printf '%s\n' "$_wr_py"
        return 0
    fi
    echo "no Python with the plugin's dependencies (yaml, frontmatter, jsonschema, trafilatura, pypdf) was found" >&2
    return 1
}
