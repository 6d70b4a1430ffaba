#!/usr/bin/env bash
# A fresh machine's R libraries, simulated on this one: run it whenever
# tools/setup.sh, tools/setup-packages.R, DESCRIPTION's dependencies or a
# version bound changes.
#
#   tools/fresh-setup-test.sh            set up into an empty library, load
#                                        every needed package in a new
#                                        process, install, run the quick start
#   tools/fresh-setup-test.sh --check    and then make check in that library
#   FRESH_REUSE=none tools/fresh-setup-test.sh
#                                        build xgboost and lightgbm too
#                                        (default: link this machine's builds,
#                                        so that it runs in minutes)
#
# What it reproduces: R sees an empty site library in front of Debian's
# (R_LIBS_SITE), no user library (R_LIBS_USER) and nothing of
# /usr/local/lib/R/site-library, where earlier set-ups put what they
# installed from CRAN. So only Debian's r-cran-* builds are visible, at
# Debian 12's versions (future 1.31, checkmate 2.1), and every CRAN package,
# every upgrade and every version bound is decided and installed as on a new
# machine. What it cannot reproduce: the Debian packages are already there
# (apt-get has nothing to do, and an r-cran-* package installed on this machine
# by hand but missing from setup.sh's list would go unnoticed); the linked
# heavy builds are not rebuilt unless FRESH_REUSE=none; the network and the
# repository are today's.
set -euo pipefail
cd "$(dirname "$0")/.."
check=no
if [ "${1:-}" = "--check" ]; then check=yes; fi
root=$(mktemp -d "${TMPDIR:-/tmp}/modelprofiles-fresh.XXXXXX")
site="$root/site-library"
mkdir -p "$site"
echo "fresh library: $site"

# The heavy builds of this machine, linked (looked up before the libraries
# are narrowed). Only if their version is the one set-up would install.
if [ "${FRESH_REUSE:-heavy}" != "none" ]; then
  for p in xgboost lightgbm; do
    dir=$(Rscript -e "cat(system.file(package = '$p', lib.loc = '/usr/local/lib/R/site-library'))")
    if [ -n "$dir" ]; then ln -s "$dir" "$site/$p"; echo "linked $p from $dir"; fi
  done
fi

export R_LIBS_SITE="$site:/usr/lib/R/site-library:/usr/lib/R/library"
export R_LIBS_USER="$root/no-user-library"
unset R_LIBS
Rscript -e 'cat("libraries:", .libPaths(), sep = "\n  ")'
# Debian's future is the old one: the case that failed on a fresh machine.
Rscript -e 'cat("future on disk before set-up:", as.character(packageVersion("future")), "\n")' || true

t0=$(date +%s)
bash tools/setup.sh check
t1=$(date +%s)
echo "[fresh] set-up: $((t1 - t0)) s"

# Every suggested package loads in a new process (setup.sh did this too;
# again here, from outside set-up).
Rscript tools/setup-packages.R check --verify

# The quick start, from the package installed into the fresh library.
R CMD INSTALL --library="$site" . > "$root/install.log" 2>&1 || { cat "$root/install.log"; exit 1; }
Rscript inst/scripts/quickstart.R "$root/quickstart.png" > "$root/quickstart.log"
test -s "$root/quickstart.png"
echo "[fresh] quick start: $root/quickstart.png"

if [ "$check" = "yes" ]; then
  t2=$(date +%s)
  make check
  echo "[fresh] make check: $(( $(date +%s) - t2 )) s"
fi
echo "[fresh] done in $(( $(date +%s) - t0 )) s; remove $root when finished"
