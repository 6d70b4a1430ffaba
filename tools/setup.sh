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
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
pkgs="r-base-dev r-cran-rcpp r-cran-rcppparallel r-cran-rcpparmadillo
  r-cran-cli r-cran-rlang r-cran-ggplot2 r-cran-ranger r-cran-mass"
if [ "$check" = "yes" ]; then
  pkgs="$pkgs r-cran-testthat r-cran-randomforest r-cran-gbm
  r-cran-knitr r-cran-rmarkdown r-cran-vdiffr r-cran-withr
  r-cran-data.table r-cran-jsonlite r-cran-matrix r-cran-nnet r-cran-rpart
  r-cran-checkmate r-cran-formula r-cran-future r-cran-future.apply r-cran-parallelly r-cran-progressr
  r-cran-metrics r-cran-r6 r-cran-mgcv r-cran-glmnet r-cran-e1071
  r-cran-caret r-cran-tibble r-cran-plotly r-cran-recipes
  pandoc qpdf tidy texlive-latex-base texlive-latex-recommended
  texlive-fonts-recommended texlive-fonts-extra"
fi
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $pkgs > /dev/null
if [ "$check" = "yes" ]; then
  # Suggested packages that Debian does not build, from CRAN through the
  # repositories R is configured with. xgboost's current release needs
  # R >= 4.3; on older R take 1.7.8.1 from the repository's archive.
  $SUDO Rscript -e '
    repos <- getOption("repos")
    if (is.null(repos) || !nzchar(repos[1L]) || identical(unname(repos[1L]), "@CRAN@")) {
      stop("R has no package repository configured: set options(repos = ...) in Rprofile.site")
    }
    have <- function(p) requireNamespace(p, quietly = TRUE)
    # Compile each package on both cores (xgboost and lightgbm take minutes).
    Sys.setenv(MAKEFLAGS = "-j2")
    # mlr3 needs a newer checkmate than Debian 12 builds.
    if (!have("checkmate") || utils::packageVersion("checkmate") < "2.3.0") {
      install.packages("checkmate", Ncpus = 2)
    }
    # future >= 1.40 exports cancel() and starts a worker that an
    # interrupt stopped again, which the package relies on after an
    # interrupt (test-executor_future.R tests it); Debian 12 builds 1.31.
    # (Its dependencies, e.g. parallelly, follow.)
    if (!have("future") || utils::packageVersion("future") < "1.40.0") {
      install.packages("future", Ncpus = 2)
    }
    # The back-ends test-executor_future.R runs besides multisession and
    # cluster: future.callr (Debian 12 builds none; callr also runs the
    # interrupt test), and future.mirai (with mirai and nanonext) where it
    # installs (its test is skipped otherwise).
    need <- c("DALEX", "ingredients", "pdp", "iml", "yaImpute", "hstats", "lightgbm",
              "parsnip", "workflows", "mlr3", "mlr3learners",
              "callr", "future.callr")
    miss <- need[!vapply(need, have, logical(1))]
    if (length(miss)) install.packages(miss, Ncpus = 2)
    if (!have("future.mirai")) try(install.packages("future.mirai", Ncpus = 2))
    if (!have("xgboost")) {
      if (getRversion() >= "4.3.0") {
        install.packages("xgboost", Ncpus = 2)
      } else {
        install.packages(paste0(sub("/$", "", repos[1L]), "/src/contrib/Archive/xgboost/xgboost_1.7.8.1.tar.gz"),
                         repos = NULL, type = "source")
      }
    }
    need <- c(need, "xgboost")
    ok <- vapply(need, have, logical(1))
    if (!all(ok)) stop("could not install: ", paste(need[!ok], collapse = ", "))
    # (From the libraries: this session has loaded the old future.)
    fv <- utils::packageVersion("future", lib.loc = .libPaths())
    if (fv < "1.40.0") stop("future >= 1.40.0 is needed, found ", fv)
  '
fi
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
if [ "$what" = "bench" ]; then
  # effectplots needs plotly (and so curl, which needs libcurl to build):
  # Debian's builds.
  $SUDO apt-get install -y -qq --no-install-recommends r-cran-plotly r-cran-patchwork > /dev/null
  # The rest from the repositories R is configured with. ALEPlot is archived
  # there: its last release (1.1) from the repository's archive.
  $SUDO Rscript -e '
    repos <- getOption("repos")
    have <- function(p) requireNamespace(p, quietly = TRUE)
    need <- c("effectplots", "callr")
    miss <- need[!vapply(need, have, logical(1))]
    if (length(miss)) install.packages(miss, Ncpus = 2)
    if (!have("ALEPlot")) suppressWarnings(install.packages("ALEPlot"))
    if (!have("ALEPlot")) {
      install.packages(paste0(sub("/$", "", repos[1L]), "/src/contrib/Archive/ALEPlot/ALEPlot_1.1.tar.gz"),
                       repos = NULL, type = "source")
    }
    need <- c(need, "ALEPlot")
    ok <- vapply(need, have, logical(1))
    if (!all(ok)) stop("could not install: ", paste(need[!ok], collapse = ", "))
  '
fi
