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
# changed since the last install. The install's build hook also builds the JupyterLab panel.
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
  "$PY" -m pip install -q --disable-pip-version-check -U pip
  "$PY" -m pip install -q --disable-pip-version-check -e "$ROOT[$extras]"
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
