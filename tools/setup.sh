#!/usr/bin/env bash
# Install what modelprofiles needs on a fresh Debian 12 machine: R packages
# from Debian's r-cran-* builds where they exist, the rest from CRAN.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  r-base-dev r-cran-rcpp r-cran-rcpparmadillo r-cran-rcppparallel \
  r-cran-cli r-cran-rlang r-cran-ggplot2 r-cran-testthat \
  r-cran-ranger r-cran-randomforest r-cran-gbm r-cran-mass \
  r-cran-knitr r-cran-rmarkdown r-cran-vdiffr r-cran-withr \
  pandoc qpdf tidy texlive-latex-base texlive-latex-recommended \
  texlive-fonts-recommended texlive-fonts-extra > /dev/null
# Suggested packages that Debian does not build: from CRAN.
$SUDO Rscript -e '
  need <- c("DALEX", "pdp")
  miss <- need[!vapply(need, requireNamespace, logical(1), quietly = TRUE)]
  if (length(miss)) install.packages(miss, repos = "https://cloud.r-project.org", Ncpus = 2)
  ok <- vapply(need, requireNamespace, logical(1), quietly = TRUE)
  if (!all(ok)) stop("could not install: ", paste(need[!ok], collapse = ", "))
'
