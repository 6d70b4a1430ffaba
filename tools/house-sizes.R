# The house bar of issue 34, measured: R files over 400 lines, top-level
# functions over 80 lines and the number of <<- in R/. Run from the
# package root: Rscript tools/house-sizes.R
files <- list.files("R", "\\.R$", full.names = TRUE)
lens <- vapply(files, function(f) length(readLines(f)), 1L)
cat("largest R files:\n"); print(head(sort(lens, decreasing = TRUE), 5))
cat("files > 400 lines:", sum(lens > 400), "\n")
long <- list()
for (f in files) {
  ex <- parse(f, keep.source = TRUE)
  sr <- attr(ex, "srcref")
  for (i in seq_along(ex)) {
    e <- ex[[i]]
    if (is.call(e) && (identical(e[[1]], as.name("<-")) || identical(e[[1]], as.name("="))) &&
        is.call(e[[3]]) && identical(e[[3]][[1]], as.name("function"))) {
      n <- sr[[i]][3] - sr[[i]][1] + 1
      if (n > 80) long[[paste0(basename(f), ":", as.character(e[[2]]))]] <- n
    }
  }
}
cat("functions > 80 lines:", length(long), "\n"); print(unlist(long))
sa <- 0
for (f in files) { p <- getParseData(parse(f, keep.source = TRUE)); sa <- sa + sum(p$token == "LEFT_ASSIGN" & p$text == "<<-") }
cat("<<- count:", sa, "\n")
