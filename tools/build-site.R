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
# Afterwards, MathJax: the pages of Debian's pkgdown 2.0.7 load MathJax.js
# from file:///usr/share/javascript/mathjax (which a browser does not load
# from a web page, and its integrity hash is of another version) and its
# configuration from a CDN, so formulas showed as raw TeX. Debian's MathJax
# (libjs-mathjax, the files the TeX input and CommonHTML output need) is
# copied into docs/mathjax/ and every page loads it from there, with or
# without the network. And the repository files the README links to
# (scripts, results files) are copied into docs/ at the same paths, so that
# the home page's links to them work on the site too.
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

# MathJax into docs/mathjax/, the pages' two MathJax scripts replaced by one.
mj <- "/usr/share/javascript/mathjax"
if (!file.exists(file.path(mj, "MathJax.js"))) {
  stop("MathJax not found in ", mj, ": install libjs-mathjax (tools/setup.sh site)")
}
parts <- c("MathJax.js", "config/TeX-AMS_CHTML.js", "jax/input/TeX", "jax/element",
           "jax/output/CommonHTML", "extensions", "fonts/HTML-CSS/TeX/woff",
           "localization/en")
unlink("docs/mathjax", recursive = TRUE)
for (p in parts) {
  to <- file.path("docs/mathjax", dirname(p))
  dir.create(to, recursive = TRUE, showWarnings = FALSE)
  # cp -L: Debian's font files are symbolic links into /usr/share/fonts.
  if (system2("cp", c("-RL", shQuote(file.path(mj, p)), shQuote(to))) != 0) {
    stop("could not copy ", file.path(mj, p))
  }
}
pages <- list.files("docs", pattern = "[.]html$", recursive = TRUE)
pages <- pages[!startsWith(pages, "mathjax/")]
n_math <- 0L
script <- "<script[^>]*src=\"[^\"]*[Mm]ath[Jj]ax[^\"]*\"[^>]*></script>"
for (page in pages) {
  file <- file.path("docs", page)
  html <- readLines(file, warn = FALSE, encoding = "UTF-8")
  if (!any(grepl(script, html))) next
  up <- strrep("../", lengths(strsplit(page, "/", fixed = TRUE)) - 1L)
  local <- sprintf("<script src=\"%smathjax/MathJax.js?config=TeX-AMS_CHTML\"></script>", up)
  # The first script becomes a placeholder (the local one matches `script`
  # too), the others are dropped.
  hit <- which(grepl(script, html))[1L]
  html[hit] <- sub(script, "@MATHJAX@", html[hit])
  html <- gsub(script, "", html)
  html <- sub("@MATHJAX@", local, html, fixed = TRUE)
  writeLines(html, file, useBytes = TRUE)
  n_math <- n_math + 1L
}
message("MathJax: docs/mathjax/, loaded by ", n_math, " pages")
