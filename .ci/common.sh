# Shared by .ci/run, .ci/newest and .ci/refresh-lock (sourced, not run).
# shellcheck shell=bash

# Debian's Chromium for the browser tests (Playwright drives it; its own download is not used).
# Retried: another process may hold the dpkg lock for a while.
ensure_chromium() {
  [ -x /usr/bin/chromium ] && return 0
  local sudo="" attempt
  if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
  for attempt in 1 2 3 4 5 6; do
    if $sudo apt-get update -q && $sudo env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q chromium; then
      return 0
    fi
    echo "apt-get failed (attempt $attempt); retrying in 20 s" >&2
    sleep 20
  done
  [ -x /usr/bin/chromium ] || { echo "could not install chromium" >&2; exit 1; }
}

# A fresh virtual environment at $1 (activated) with everything the tests install: the test
# extra, then lmms-eval (tests marked lmms_eval) without its declared dependencies, which would
# pull torchvision and a CUDA torch; .ci/lmms-eval-requirements.txt says why and lists what its
# tested path imports. The test extra comes first so that torch stays 2.13.0 (CPU). Versions come
# from $PIP_CONSTRAINT when it is set (the lock), else the newest releases.
install_for_tests() {
  rm -rf "$1"
  python3 -m venv "$1"
  # shellcheck disable=SC1091
  source "$1/bin/activate"
  python -m pip install --quiet --upgrade pip
  pip install --quiet -e ".[test]"
  pip install --quiet --no-deps lmms_eval
  pip install --quiet -r .ci/lmms-eval-requirements.txt
  export WHATIF_REQUIRE_LMMS_EVAL=1   # the lmms-eval test fails instead of skipping
}

# NAME==VERSION of the installed packages that matter most to us.
print_versions() {
  python - <<'PY'
from importlib.metadata import PackageNotFoundError, version

for name in ("torch", "transformers", "accelerate", "tokenizers", "datasets", "inspect_ai",
             "ray", "lmms_eval", "numpy", "pillow"):
    try:
        print(f"{name}=={version(name)}")
    except PackageNotFoundError:
        print(f"{name}: not installed")
PY
}

# Say how long the script took when it ends (success or not).
report_time() {
  local name=$1 start=$SECONDS
  # shellcheck disable=SC2064
  trap "echo \"$name: \$((SECONDS - $start)) s in all\" >&2" EXIT
}
