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
# Afterwards, the repository files the README links to (scripts, results
# files) are copied into docs/ at the same paths, so that the home page's
# links to them work on the site too.
options(pkgdown.internet = FALSE)
offline_cran_urls <- function() {
  data.frame(Package = character(), URL = character(), stringsAsFactors = FALSE)
}
utils::assignInNamespace("CRAN_urls", offline_cran_urls, ns = "downlit")
pkgdown::build_site(install = FALSE, new_process = FALSE, preview = FALSE)

readme <- readLines("README.md", warn = FALSE)
links <- unlist(regmatches(readme, gregexpr("\\]\\([^)#]+\\)", readme)))
links <- unique(sub("^\\]\\((.*)\\)$", "\\1", links))
links <- links[!grepl("^([a-z]+:|/)", links) & !grepl("\\.(md|png)$", links) &
                 file.exists(links) & !dir.exists(links)]
for (f in links) {
  dir.create(file.path("docs", dirname(f)), recursive = TRUE, showWarnings = FALSE)
  file.copy(f, file.path("docs", f), overwrite = TRUE)
}
if (length(links)) message("Copied the README's linked files into docs/: ", paste(links, collapse = ", "))
