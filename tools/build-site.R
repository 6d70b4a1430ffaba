# Build the pkgdown site into docs/ without the network (`make site` runs
# this with the package installed in a temporary library first on
# .libPaths()).
#   Rscript tools/build-site.R
# Two look-ups of pkgdown 2.0.7 and downlit would go online:
# * the home page sidebar's CRAN/Bioconductor link (also left out of
#   _pkgdown.yml's sidebar structure): the option pkgdown.internet = FALSE
#   turns it off;
# * downlit links a package named in code (library(future.batchtools) in
#   vignettes/large-data.Rmd) to its web page: from the DESCRIPTION of an
#   installed package, else from CRAN's package table, which it downloads.
#   Here that table is empty: a package that is not installed gets no link.
options(pkgdown.internet = FALSE)
offline_cran_urls <- function() {
  data.frame(Package = character(), URL = character(), stringsAsFactors = FALSE)
}
utils::assignInNamespace("CRAN_urls", offline_cran_urls, ns = "downlit")
pkgdown::build_site(install = FALSE, new_process = FALSE, preview = FALSE)
