# Shared by scripts/run and scripts/test: find the repo, install Debian packages
# (when root), make the virtual environment and install the package into it.
# shellcheck shell=bash
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${ZENGINE_VENV:-$ROOT/.venv}"
PY="$VENV/bin/python"

# Each step line carries the wall-clock time and the seconds since the script began, so a CI
# log shows where the time goes (the gap between two lines is the earlier step's duration).
ZENGINE_T0="${ZENGINE_T0:-$SECONDS}"
say() { printf '\033[1m==> [%s +%ss] %s\033[0m\n' "$(date -u +%H:%M:%S)" "$((SECONDS - ZENGINE_T0))" "$*" >&2; }

# apt_ensure CMD:PACKAGE ...  installs PACKAGE when CMD is missing (root + apt only).
apt_ensure() {
  local missing=() pair cmd pkg
  for pair in "$@"; do
    cmd="${pair%%:*}"; pkg="${pair#*:}"
    command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    say "missing: ${missing[*]} (install them with: sudo apt-get install -y ${missing[*]})"
    return 0
  fi
  say "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# venv_ensure EXTRAS  creates $VENV and installs the package with EXTRAS (editable);
# skipped when pyproject.toml and the version's source (labextension/package.json) have not
# changed since the last install. The panel is labext_ensure's job (the build hook is skipped).
venv_ensure() {
  local extras="$1" base
  if [ ! -x "$PY" ]; then
    base=""
    for candidate in python3 python3.13 python3.12 python3.11; do
      if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        base="$candidate"; break
      fi
    done
    [ -n "$base" ] || { say "Python 3.11 or newer is needed (apt-get install -y python3)"; exit 1; }
    if ! "$base" -m venv "$VENV" 2>/dev/null; then
      apt_ensure "__no_such_command__:python3-venv"  # Debian splits venv out
      "$base" -m venv "$VENV"
    fi
  fi
  local stamp="$VENV/.zengine-installed-$extras"
  local want
  want="$(cat "$ROOT/pyproject.toml" "$ROOT/labextension/package.json" | sha256sum | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return 0
  fi
  say "pip install -e .[$extras] into $VENV"
  "$PY" -m pip install -q --disable-pip-version-check --no-compile -U pip
  # --no-compile: Python compiles a module when it is first imported, not the ~170 packages
  # whole at install time. SKIP_JUPYTER_BUILDER: labext_ensure builds the panel (once, with
  # its stamps), the editable install's build hook would build it a second time.
  SKIP_JUPYTER_BUILDER=1 "$PY" -m pip install -q --disable-pip-version-check --no-compile \
    -e "$ROOT[$extras]"
  echo "$want" > "$stamp"
}

# labext_ensure  builds the JupyterLab panel and the cell widgets (labextension/: the widgets' ESM
# bundles go to zengine_jupyter/kernel/_widgets) when their sources changed, and puts
# the panel where JupyterLab looks ($VENV/share/jupyter/labextensions/zengine-jupyter). `jlpm install`
# runs only when package.json / yarn.lock change, the build only when a source file does
# (stamps in labextension/node_modules). Without node it says so and leaves the panel out.
labext_ensure() {
  local dir="$ROOT/labextension" out="$ROOT/zengine_jupyter/labextension"
  local share="$VENV/share/jupyter/labextensions/zengine-jupyter" deps_sum src_sum
  if ! command -v node >/dev/null 2>&1; then
    say "node is missing: the JupyterLab panel is not built (apt-get install -y nodejs npm)"
    return 0
  fi
  deps_sum="$(cat "$dir/package.json" "$dir/yarn.lock" "$dir/.yarnrc.yml" | sha256sum | cut -d' ' -f1)"
  if [ "$(cat "$dir/node_modules/.zengine-installed" 2>/dev/null)" != "$deps_sum" ]; then
    say "jlpm install (labextension/)"
    (cd "$dir" && PATH="$VENV/bin:$PATH" "$VENV/bin/jlpm" install --immutable)
    echo "$deps_sum" > "$dir/node_modules/.zengine-installed"
  fi
  src_sum="$(cd "$dir" && find package.json yarn.lock tsconfig.json install.json build-widgets.mjs src style schema \
    -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
  if [ ! -f "$out/package.json" ] || [ ! -f "$ROOT/zengine_jupyter/kernel/_widgets/turn.js" ] \
    || [ "$(cat "$dir/node_modules/.zengine-built" 2>/dev/null)" != "$src_sum" ]; then
    say "jlpm build (labextension/)"
    (cd "$dir" && PATH="$VENV/bin:$PATH" "$VENV/bin/jlpm" build)
    echo "$src_sum" > "$dir/node_modules/.zengine-built"
    rm -rf "$share"
  fi
  if [ ! -f "$share/package.json" ] || ! cmp -s "$out/package.json" "$share/package.json"; then
    rm -rf "$share"
    mkdir -p "$(dirname "$share")"
    cp -R "$out" "$share"
    cp "$dir/install.json" "$share/install.json"
  fi
}

# npm_tools_ensure PKG@RANGE ...  installs npm programs the tests use (typescript-language-server)
# into $VENV/npm-tools, when npm exists; skipped while the list is unchanged. Tests look in
# $VENV/npm-tools/node_modules/.bin. A failed install is reported, not fatal: only the tests
# that need the program then skip (or fail under CI=true).
npm_tools_ensure() {
  if ! command -v npm >/dev/null 2>&1; then
    say "npm is missing: skipping npm test tools ($*)"; return 0
  fi
  local dir="$VENV/npm-tools" want="$*"
  local stamp="$dir/.zengine-installed"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return 0
  fi
  say "npm install $* into $dir"
  mkdir -p "$dir"
  if npm install --no-audit --no-fund --silent --prefix "$dir" "$@" >/dev/null; then
    echo "$want" > "$stamp"
  else
    say "npm install $* failed: the tests that need them will skip (fail under CI=true)"
  fi
}

# npm_fixtures_ensure  installs the third-party test servers (npm) pinned by
# tests/fixtures/npm/package-lock.json; again only when the lock file changes. Without npm the
# tests that need them skip (fail in CI).
# jupyter-collaboration for the RTC browser test only, in a private prefix (.collab, gitignored):
# installed in the venv it would turn real-time collaboration on in every lab `scripts/run`
# starts (the quickstart rewritten on open, .jupyter_ystore.db in the repository).
collab_ensure() {
  local site
  site="$ROOT/.collab/lib/python$("$PY" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')/site-packages"
  [ -d "$site/jupyter_collaboration" ] && return 0
  say "pip install --prefix .collab jupyter-collaboration"
  "$PY" -m pip install -q --no-compile --prefix "$ROOT/.collab" "jupyter-collaboration>=4"
}

# jai_ensure  the latest jupyter-ai and jupyter-ai-acp-client, for their browser test only, in a
# venv of their own ($ZENGINE_JAI_VENV, else .jai, gitignored): in the project's venv they would
# add their chat, personas and server extensions to every lab the other tests start. Then our
# runtime dependencies (pyproject.toml) and this checkout, editable without dependencies. Two
# resolves, not one: jupyter-ai needs jupyter-server-mcp, whose fastmcp server pins mcp<2, and
# we need mcp>=2.3, so one resolve backtracks for minutes and fails; installed in this order
# our mcp wins and only jupyter-server-mcp (jupyter-ai's notebook tools for agents) stays
# unloaded. It needs no built panel (the editable install works without one; the test's lab
# loads the current build through JUPYTER_PATH). Skipped while pyproject.toml is unchanged.
_pyproject_list() {  # the requirements of [project] dependencies, or of the extra named $1
  "$PY" -c 'import sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
print("\n".join(project.get(sys.argv[2]) or project["optional-dependencies"][sys.argv[2]]))' \
    "$ROOT/pyproject.toml" "$1"
}

jai_ensure() {
  local venv="${ZENGINE_JAI_VENV:-$ROOT/.jai}" py want stamp deps=() extra=()
  py="$venv/bin/python"
  stamp="$venv/.zengine-installed"
  want="$(sha256sum < "$ROOT/pyproject.toml" | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return 0
  fi
  [ -x "$py" ] || "$PY" -m venv "$venv"
  mapfile -t extra < <(echo "jupyter-ai>=3.2"; _pyproject_list jupyter-ai)  # the full jupyter-ai
  mapfile -t deps < <(_pyproject_list dependencies)
  local pip=("$py" -m pip install -q --disable-pip-version-check --no-compile)
  say "pip install ${extra[*]} into $venv"
  "${pip[@]}" -U pip
  "${pip[@]}" -U "${extra[@]}"
  say "pip install our runtime dependencies and -e . (--no-deps) into $venv"
  "${pip[@]}" "${deps[@]}"
  "$py" -c 'import mcp, acp, jupyter_ai_acp_client, pydantic, ipykernel' # the install worked
  SKIP_JUPYTER_BUILDER=1 "${pip[@]}" --no-deps -e "$ROOT"
  echo "$want" > "$stamp"
}

npm_fixtures_ensure() {
  local dir="$ROOT/tests/fixtures/npm" lock_sum stamp
  command -v npm >/dev/null 2>&1 || return 0
  lock_sum="$(sha256sum < "$dir/package-lock.json" | cut -d' ' -f1)"
  stamp="$dir/node_modules/.zengine-installed"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
    say "npm ci --prefix tests/fixtures/npm"
    npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
    echo "$lock_sum" > "$stamp"
  fi
}

# bg NAME CMD ARGS...  runs CMD (a command or a function) in the background with its output
# kept aside; bg_wait waits for every one, prints each one's output in turn (never interleaved)
# and fails when any failed. Steps that do not need each other overlap: on two cores the npm
# installs run while pip installs, the Python gates while the TypeScript ones.
_BG_PIDS=() _BG_NAMES=() _BG_LOGS=()
bg() {
  local name="$1" log
  shift
  log="$(mktemp)"
  say "$name (in the background)"
  ("$@") >"$log" 2>&1 &
  _BG_PIDS+=("$!") _BG_NAMES+=("$name") _BG_LOGS+=("$log")
}

bg_wait() {
  local i failed=0
  for i in "${!_BG_PIDS[@]}"; do
    if wait "${_BG_PIDS[$i]}"; then
      say "${_BG_NAMES[$i]}: done"
    else
      say "${_BG_NAMES[$i]}: FAILED"; failed=1
    fi
    cat "${_BG_LOGS[$i]}" >&2
    rm -f "${_BG_LOGS[$i]}"
  done
  _BG_PIDS=() _BG_NAMES=() _BG_LOGS=()
  return "$failed"
}
