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

# The other scripts and styles of the pages, from local copies. pkgdown 2.0.7
# loads them from CDNs: without the network the search box finds nothing
# (fuse.js, autocomplete.js), "On this page" stays empty (bootstrap-toc), the
# navbar and copy buttons do not work (headroom, clipboard.js; mark.js
# highlights the search words) and the icons are missing (Font Awesome).
# tools/setup.sh site installs the same releases with npm into
# MODELPROFILES_SITE_JS (default /usr/local/share/modelprofiles-site/
# node_modules); each file is checked against the integrity hash the page
# asks for, so a copy is byte for byte the file of the CDN. bootstrap-toc is
# on no registry reachable here: tools/site-assets/toc.js offers the one call
# pkgdown.js makes of it (Toc.init()). The search index is put into the
# pages as a script (search-index.js), since a browser does not fetch()
# search.json from a file:// page, and pkgdown.js opens a result relative to
# the site's root instead of the web server's.
js <- Sys.getenv("MODELPROFILES_SITE_JS", "/usr/local/share/modelprofiles-site/node_modules")
if (!dir.exists(js)) {
  stop("The site's scripts were not found in ", js, ": run make setup-site ",
       "(tools/setup.sh site), or set MODELPROFILES_SITE_JS")
}
# The file a page asks for (its URL's last part) -> the local file, and the
# folder under docs/deps/ it goes to (with the package's licence).
assets <- list(
  "headroom.min.js" = c("headroom.js/dist/headroom.min.js", "headroom-0.11.0"),
  "jQuery.headroom.min.js" = c("headroom.js/dist/jQuery.headroom.min.js", "headroom-0.11.0"),
  "clipboard.min.js" = c("clipboard/dist/clipboard.min.js", "clipboard.js-2.0.6"),
  "fuse.js" = c("fuse.js/dist/fuse.js", "fuse.js-6.4.6"),
  "autocomplete.jquery.min.js" = c("autocomplete.js/dist/autocomplete.jquery.min.js", "autocomplete.js-0.38.0"),
  "mark.min.js" = c("mark.js/dist/mark.min.js", "mark.js-8.11.1"),
  "all.min.css" = c("@fortawesome/fontawesome-free/css/all.min.css", "font-awesome-5.12.1/css"),
  "v4-shims.min.css" = c("@fortawesome/fontawesome-free/css/v4-shims.min.css", "font-awesome-5.12.1/css"),
  "bootstrap-toc.min.js" = c(NA, "toc")
)
sri <- function(file, algo) {
  hex <- digest::digest(file = file, algo = algo, serialize = FALSE)
  bytes <- as.raw(strtoi(substring(hex, seq(1, nchar(hex), 2), seq(2, nchar(hex), 2)), 16L))
  paste0(algo, "-", gsub("\\s", "", jsonlite::base64_enc(bytes)))
}
copy_asset <- function(name, integrity) {
  a <- assets[[name]]
  to <- file.path("docs/deps", a[2])
  dir.create(to, recursive = TRUE, showWarnings = FALSE)
  if (is.na(a[1])) {
    file.copy("tools/site-assets/toc.js", file.path(to, "toc.js"), overwrite = TRUE)
    return(file.path("deps", a[2], "toc.js"))
  }
  from <- file.path(js, a[1])
  if (!file.exists(from)) stop(from, " not found: run make setup-site")
  if (nzchar(integrity) && !identical(sri(from, sub("-.*", "", integrity)), integrity)) {
    stop(from, " is not the file the pages ask for (integrity ", integrity, ")")
  }
  file.copy(from, to, overwrite = TRUE)
  pkg_dir <- file.path(js, strsplit(a[1], "/(dist|css)/")[[1]][1])
  lic <- list.files(pkg_dir, pattern = "^LICEN[SC]E", full.names = TRUE)
  file.copy(lic, to, overwrite = TRUE)
  if (startsWith(a[2], "font-awesome")) {
    # all.min.css loads its fonts from ../webfonts/.
    file.copy(file.path(pkg_dir, "webfonts"), dirname(to), recursive = TRUE, overwrite = TRUE)
    file.copy(lic, dirname(to), overwrite = TRUE)
  }
  file.path("deps", a[2], basename(from))
}
remote_tag <- "<(script|link)\\b[^>]*\\b(src|href)=\"(https?:)?//[^\"]+\"[^>]*>(</script>)?"
index <- readLines("docs/search.json", warn = FALSE, encoding = "UTF-8")
writeLines(c("window.pkgdownSearchIndex = ", index, ";"), "docs/search-index.js", useBytes = TRUE)
pkgdown_js <- readLines("docs/pkgdown.js", warn = FALSE, encoding = "UTF-8")
patches <- list(
  c("    var response = await fetch($(\"#search-input\").data(\"search-index\"));",
    "    var data = window.pkgdownSearchIndex;",
    "    if (!data) {",
    "      var response = await fetch($(\"#search-input\").data(\"search-index\"));",
    "      data = await response.json();",
    "    }"),
  c("    var data = await response.json();"),
  c("    window.location.href = s.path + \"?q=\" + q + \"#\" + s.id;",
    "    // s.path is relative to the site's root, where search.json is.",
    "    var root = new URL($(\"#search-input\").data(\"search-index\"), window.location.href);",
    "    window.location.href = new URL(s.path.replace(/^\\//, \"\"), root).href + \"?q=\" + q + \"#\" + s.id;")
)
for (p in patches) {
  hit <- which(pkgdown_js == p[1])
  if (length(hit) != 1L) stop("docs/pkgdown.js: line not found, pkgdown changed: ", p[1])
  pkgdown_js <- c(pkgdown_js[seq_len(hit - 1L)], p[-1L], pkgdown_js[-seq_len(hit)])
}
writeLines(pkgdown_js, "docs/pkgdown.js", useBytes = TRUE)
used <- character()
copied <- list()
for (page in pages) {
  file <- file.path("docs", page)
  html <- paste(readLines(file, warn = FALSE, encoding = "UTF-8"), collapse = "\n")
  # Internet Explorer 8's shims (html5shiv, respond.js from a CDN).
  html <- gsub("(?s)<!--\\[if lt IE 9\\]>.*?<!\\[endif\\]-->", "", html, perl = TRUE)
  up <- strrep("../", lengths(strsplit(page, "/", fixed = TRUE)) - 1L)
  tags <- regmatches(html, gregexpr(remote_tag, html, perl = TRUE))[[1]]
  for (tag in unique(tags)) {
    url <- sub(".*\\b(src|href)=\"([^\"]+)\".*", "\\2", tag)
    name <- basename(url)
    if (is.null(assets[[name]])) stop(page, " loads ", url, ", which has no local copy")
    integrity <- if (grepl("integrity=\"", tag)) sub(".*integrity=\"([^\"]+)\".*", "\\1", tag) else ""
    if (!name %in% names(copied)) copied[[name]] <- copy_asset(name, integrity)
    local <- paste0(up, copied[[name]])
    new <- if (startsWith(tag, "<script")) {
      sprintf("<script src=\"%s\"></script>", local)
    } else {
      sprintf("<link rel=\"stylesheet\" href=\"%s\">", local)
    }
    # The index before pkgdown.js, which reads it.
    if (name == "mark.min.js") {
      new <- paste0(new, sprintf("<script src=\"%ssearch-index.js\"></script>", up))
    }
    html <- gsub(tag, new, html, fixed = TRUE)
    used <- union(used, name)
  }
  left <- regmatches(html, gregexpr(remote_tag, html, perl = TRUE))[[1]]
  if (length(left)) stop(page, " still loads from the network: ", left[1])
  writeLines(html, file, useBytes = TRUE)
}
missing <- setdiff(c("fuse.js", "autocomplete.jquery.min.js", "bootstrap-toc.min.js"), used)
if (length(missing)) stop("no page loads ", paste(missing, collapse = ", "), ": pkgdown changed")
message("Scripts and styles from docs/deps/ (", length(used), " files, no CDN), ",
        "search index in docs/search-index.js")
