# make demo   set up, install the package, run the quick start (PNG + table)
# make check  set up, build the tarball, R CMD check --as-cran it (NOT_CRAN=true:
#             every test, the plot snapshots included)
PKG := modelprofiles
VERSION := $(shell sed -n 's/^Version: //p' DESCRIPTION)
TARBALL := $(PKG)_$(VERSION).tar.gz
export _R_CHECK_CRAN_INCOMING_REMOTE_ = false
export _R_CHECK_SYSTEM_CLOCK_ = FALSE
export _R_CHECK_FORCE_SUGGESTS_ = false

.PHONY: setup-run setup-check install demo build check test document

setup-run:
	bash tools/setup.sh run

setup-check:
	bash tools/setup.sh check

install: setup-run
	R CMD INSTALL .

demo: install
	Rscript inst/scripts/quickstart.R modelprofiles-quickstart.png

build:
	R CMD build .

# NOT_CRAN=true: the tests that skip on CRAN run too, the vdiffr snapshots
# (tests/testthat/_snaps) among them, and the 10^7-row test (about 16 s,
# 1 GB).
check: setup-check build
	NOT_CRAN=true R CMD check --as-cran $(TARBALL)
	bash tools/check-status.sh $(PKG).Rcheck

# Developer targets (need roxygen2).
document:
	Rscript -e 'Rcpp::compileAttributes("."); roxygen2::roxygenise()'

test:
	Rscript -e 'devtools::test()'
