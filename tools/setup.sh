#!/usr/bin/env bash
# Install what modelprofiles needs on a fresh Debian 12 machine: R packages
# from Debian's r-cran-* builds where they exist, the rest from CRAN.
#   tools/setup.sh run    what the package and the quick start need
#   tools/setup.sh check  that, plus what R CMD check --as-cran needs
#                         (LaTeX for the manual, every suggested package)
#   tools/setup.sh bench  that, plus the peers and tools of the benchmarks
#                         (inst/bench/): effectplots, ALEPlot, callr
#   tools/setup.sh site   check's, plus what the pkgdown site needs (make site,
#                         make site-check): pkgdown, Chromium, MathJax, the
#                         pages' scripts (npm)
set -euo pipefail
what=${1:-check}
# bench and site include everything of check.
check=no
if [ "$what" = "check" ] || [ "$what" = "bench" ] || [ "$what" = "site" ]; then check=yes; fi
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
t0=$(date +%s)
pkgs="r-base-dev r-cran-rcpp r-cran-rcppparallel r-cran-rcpparmadillo
  r-cran-cli r-cran-rlang r-cran-ggplot2 r-cran-ranger r-cran-mass"
if [ "$check" = "yes" ]; then
  pkgs="$pkgs r-cran-testthat r-cran-randomforest r-cran-gbm
  r-cran-knitr r-cran-rmarkdown r-cran-vdiffr r-cran-withr
  r-cran-data.table r-cran-jsonlite r-cran-matrix r-cran-nnet r-cran-rpart
  r-cran-checkmate r-cran-formula r-cran-future r-cran-future.apply r-cran-parallelly r-cran-progressr
  r-cran-r6 r-cran-mgcv r-cran-glmnet r-cran-e1071
  r-cran-caret r-cran-tibble r-cran-plotly r-cran-recipes
  pandoc qpdf tidy texlive-latex-base texlive-latex-recommended
  texlive-fonts-recommended texlive-fonts-extra"
fi
if [ "$what" = "bench" ]; then
  # effectplots needs plotly (and so curl, which needs libcurl to build) and
  # patchwork: Debian's builds; the rest of the peers come from CRAN below.
  pkgs="$pkgs r-cran-patchwork"
fi
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $pkgs > /dev/null
echo "[setup] Debian packages: $(( $(date +%s) - t0 )) s"
# What Debian does not build (or builds too old), from the repositories R is
# configured with. tools/setup-packages.R decides from the libraries on disk,
# without loading a namespace, then a new R process loads every package the
# package, its tests and vignettes need and checks the loaded versions.
rpkgs=run
if [ "$check" = "yes" ]; then rpkgs=check; fi
if [ "$what" = "bench" ]; then rpkgs=bench; fi
$SUDO Rscript tools/setup-packages.R "$rpkgs"
Rscript tools/setup-packages.R "$rpkgs" --verify
if [ "$what" = "site" ]; then
  # pkgdown (with its dependencies) and the browser that renders the pages
  # for make site-check: Debian's builds. libjs-mathjax: the formulas of the
  # pages, copied into the site by tools/build-site.R.
  $SUDO apt-get install -y -qq --no-install-recommends r-cran-pkgdown chromium \
    libjs-mathjax fonts-mathjax > /dev/null
  # The scripts and styles pkgdown 2.0.7's pages load from CDNs (search,
  # navbar, copy buttons, icons), the same releases, from the npm registry
  # into MODELPROFILES_SITE_JS; tools/build-site.R copies them into the site
  # and checks each against the hash the pages name.
  if ! command -v npm > /dev/null; then
    $SUDO apt-get install -y -qq --no-install-recommends npm > /dev/null
  fi
  site_js=${MODELPROFILES_SITE_JS:-/usr/local/share/modelprofiles-site/node_modules}
  $SUDO mkdir -p "$(dirname "$site_js")"
  $SUDO npm install --prefix "$(dirname "$site_js")" --no-save --no-package-lock \
    --ignore-scripts --no-audit --no-fund \
    fuse.js@6.4.6 autocomplete.js@0.38.0 headroom.js@0.11.0 clipboard@2.0.6 \
    mark.js@8.11.1 @fortawesome/fontawesome-free@5.12.1 > /dev/null
fi
