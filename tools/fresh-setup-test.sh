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
# What it reproduces: R's libraries as on a new machine. Debian's
# Renviron.site puts /usr/local/lib/R/site-library (where earlier set-ups put
# what they installed from CRAN) in front of every library whatever
# R_LIBS_SITE says, so environment variables cannot hide it: the script runs
# in a private mount namespace (unshare -m, as root) with an empty directory
# mounted over it, and R_LIBS_USER pointing nowhere. Only Debian's r-cran-*
# builds are visible, at Debian 12's versions (future 1.31, checkmate 2.1),
# and every CRAN package, every upgrade and every version bound is decided
# and installed as on a new machine, into the same path. What it cannot
# reproduce: the Debian packages are already there (apt-get has nothing to
# do, and an r-cran-* package installed on this machine outside setup.sh's
# list would go unnoticed); the copied heavy builds are not rebuilt unless
# FRESH_REUSE=none; the network and the repository are today's.
set -euo pipefail
cd "$(dirname "$0")/.."
check=no
if [ "${1:-}" = "--check" ]; then check=yes; fi
if [ -z "${MODELPROFILES_FRESH_INNER:-}" ]; then
  root=$(mktemp -d "${TMPDIR:-/tmp}/modelprofiles-fresh.XXXXXX")
  mkdir -p "$root/site-library"
  echo "fresh library: $root/site-library (mounted over /usr/local/lib/R/site-library)"
  # The heavy builds of this machine, copied in (the real library is hidden
  # once the namespace is made).
  if [ "${FRESH_REUSE:-heavy}" != "none" ]; then
    for p in xgboost lightgbm; do
      if [ -d "/usr/local/lib/R/site-library/$p" ]; then
        cp -a "/usr/local/lib/R/site-library/$p" "$root/site-library/"
        echo "reused this machine's build of $p"
      fi
    done
  fi
  exec unshare -m env MODELPROFILES_FRESH_INNER="$root" bash -c \
    "mount --bind '$root/site-library' /usr/local/lib/R/site-library && exec bash '$(pwd)/tools/fresh-setup-test.sh' $*"
fi
root=$MODELPROFILES_FRESH_INNER
site=/usr/local/lib/R/site-library
export R_LIBS_USER="$root/no-user-library"
unset R_LIBS
Rscript -e 'cat("libraries:", .libPaths(), sep = "\n  "); cat("\n")'
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
