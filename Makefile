# make demo   set up, install the package, run the quick start (PNG + table)
# make check  set up, check the house rules on the source tree
#             (tools/house-rules.R), build the tarball, R CMD check --as-cran
#             it (NOT_CRAN=true: every test, the plot snapshots included)
# make house-rules  the house rules alone
# make site   install the package into a temporary library and build the
#             pkgdown site into docs/ without the network (first, on a fresh
#             machine: make setup-site)
# make site-check  the site, then screenshots of its pages in headless
#             Chromium in docs-screenshots/ (tools/site-screenshots.sh); the
#             search box must find pages and "On this page" list headings
#             offline (their scripts are copied into docs/deps/)
PKG := modelprofiles
VERSION := $(shell sed -n 's/^Version: //p' DESCRIPTION)
TARBALL := $(PKG)_$(VERSION).tar.gz
export _R_CHECK_CRAN_INCOMING_REMOTE_ = false
export _R_CHECK_SYSTEM_CLOCK_ = FALSE
export _R_CHECK_FORCE_SUGGESTS_ = false

.PHONY: setup-run setup-check setup-site install demo build check house-rules site site-check test document

setup-run:
	bash tools/setup.sh run

setup-check:
	bash tools/setup.sh check

setup-site:
	bash tools/setup.sh site

install: setup-run
	R CMD INSTALL .

demo: install
	Rscript inst/scripts/quickstart.R modelprofiles-quickstart.png

build:
	R CMD build .

house-rules:
	Rscript tools/house-rules.R .

# NOT_CRAN=true: the tests that skip on CRAN run too, the vdiffr snapshots
# (tests/testthat/_snaps) among them, and the 10^7-row test (about 16 s,
# 1 GB).
# The house rules (ARCHITECTURE.md) are checked on the source tree first:
# the tarball has no tools/, so its tests cannot.
check: setup-check house-rules build
	NOT_CRAN=true R CMD check --as-cran $(TARBALL)
	bash tools/check-status.sh $(PKG).Rcheck

# The site is built from the package installed into a temporary library (not
# the system one), removed afterwards. The proxy that refuses every
# connection makes sure nothing is fetched; tools/build-site.R turns off the
# look-ups pkgdown and downlit would make.
OFFLINE := http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 \
  HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 no_proxy= NO_PROXY=
site:
	lib=$$(mktemp -d) && trap 'rm -rf "$$lib"' EXIT && \
	R CMD INSTALL --library="$$lib" . && \
	R_LIBS="$$lib$${R_LIBS:+:$$R_LIBS}" $(OFFLINE) Rscript tools/build-site.R

site-check: site
	bash tools/site-screenshots.sh docs-screenshots docs

# Developer targets (need roxygen2).
document:
	Rscript -e 'Rcpp::compileAttributes("."); roxygen2::roxygenise()'

test:
	Rscript -e 'devtools::test()'
